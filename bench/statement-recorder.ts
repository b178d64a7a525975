import { startFaultProxy } from '../test/faults/proxy.js';

/** A statement as a client ran it: its text and the values bound to its parameters, as the wire carried them (text format). */
export interface RecordedStatement {
  text: string;
  values: (string | null)[];
}

/** Readings of a read before its statements are taken as unsettled (see `settled`). */
const settlingAttempts = 5;

/** The protocol version of a startup message (3.0); other untyped first messages (SSLRequest) come before it. */
const protocolVersion3 = 196608;

/**
 * A TCP proxy in front of PostgreSQL that records the statements its clients run, read off the
 * frontend protocol: Parse names a statement's text (once per connection when the statement is
 * named), Bind runs it with values, Query runs a text without any. The race (bench/race.ts) replays
 * the very statement our read sends this way, whichever code built it.
 */
export async function startStatementRecorder(targetUrl: string) {
  let recorded: RecordedStatement[] = [];
  let refusal: string | undefined;
  const proxy = await startFaultProxy(targetUrl, (client) => {
    const texts = new Map<string, string>();
    client.on(
      'data',
      frontendMessages((type, body) => {
        const reader = new MessageReader(body);
        if (type === 'P') texts.set(reader.cString(), reader.cString());
        else if (type === 'Q') recorded.push({ text: reader.cString(), values: [] });
        else if (type === 'B') {
          reader.cString(); // the portal
          const text = texts.get(reader.cString());
          const formats = Array.from({ length: reader.int16() }, () => reader.int16());
          const values = Array.from({ length: reader.int16() }, () => reader.value());
          if (text === undefined) refusal = 'a Bind named a statement this connection did not Parse through the recorder';
          else if (formats.includes(1)) refusal = `a statement bound a binary value, which the recorder does not replay: ${text}`;
          else recorded.push({ text, values });
        }
      }),
    );
  });
  const take = (): RecordedStatement[] => {
    if (refusal) throw new Error(refusal);
    const taken = recorded;
    recorded = [];
    return taken;
  };
  return {
    /** The target's URL with the recorder's host and port. */
    url: proxy.url,
    /** The statements run since the last call. */
    take,
    /**
     * The statements `read` sends that `keep` selects, and its last answer, once its server has done
     * what it does on a first request only (a key's lookup): read again until two readings send the
     * same statements, since one of the server's own (a background job's) may land during a reading.
     */
    async settled<Answer>(name: string, read: () => Promise<Answer>, keep: (statement: RecordedStatement) => boolean = () => true) {
      await read();
      let previous: string | undefined;
      for (let attempt = 1; attempt <= settlingAttempts; attempt++) {
        take();
        const answer = await read();
        const statements = take().filter(keep);
        const texts = statements.map(({ text }) => text).join('\n');
        if (texts === previous) return { statements, answer };
        previous = texts;
      }
      throw new Error(`${name}: its statements differed in each of ${settlingAttempts} readings`);
    },
    close: proxy.close,
  };
}

/** A handler of a connection's chunks that calls `onMessage` with each whole typed message (type byte, body without the length). */
function frontendMessages(onMessage: (type: string, body: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      // The first messages (startup, SSLRequest) carry no type byte; their length counts itself, as every length does.
      const typeBytes = started ? 1 : 0;
      if (pending.length < typeBytes + 4) return;
      const end = typeBytes + pending.readInt32BE(typeBytes);
      if (pending.length < end) return;
      if (started) onMessage(String.fromCharCode(pending[0]!), pending.subarray(5, end));
      else started = pending.readInt32BE(4) === protocolVersion3;
      pending = pending.subarray(end);
    }
  };
}

class MessageReader {
  private offset = 0;
  constructor(private readonly body: Buffer) {}

  cString(): string {
    const end = this.body.indexOf(0, this.offset);
    const text = this.body.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return text;
  }

  int16(): number {
    this.offset += 2;
    return this.body.readInt16BE(this.offset - 2);
  }

  /** A parameter's value: its length (-1 for null), then its bytes. */
  value(): string | null {
    const length = this.body.readInt32BE(this.offset);
    this.offset += 4;
    if (length < 0) return null;
    this.offset += length;
    return this.body.toString('utf8', this.offset - length, this.offset);
  }
}
