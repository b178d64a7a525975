import { createClient, type Client } from 'graphql-ws';

/**
 * A booking event as the feed shows it: the webhook body. A waitlist.offered event's data is the
 * waitlist entry (`wle_…`), with its party and the offer: the hold to book and when it lapses.
 */
export interface FeedEvent {
  id: string;
  event: string;
  created: string;
  data: {
    id: string;
    status: string;
    start_time: string;
    customer?: { name?: string };
    party_size?: number;
    offer?: { hold_id: string; expires_at: string } | null;
  };
}

export type FeedStatus = 'live' | 'reconnecting';

const subscription = 'subscription ($after: ID) { bookingEvents(after: $after) { id event created data } }';
const retryDelaysMs = [250, 500, 1000, 2000, 5000];

/**
 * The account's booking events over graphql-ws. Every (re)connection subscribes after the last event
 * shown, and the server replays the log from there: nothing missed while disconnected, nothing twice.
 */
export function startFeed(options: {
  key: string;
  after: string | null;
  onEvent(event: FeedEvent): void;
  onStatus(status: FeedStatus): void;
  /** The newest events of the log, oldest first: what a gap held when there was no event to resume after. */
  latest(): Promise<FeedEvent[]>;
}): { stop(): void } {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  let lastId = options.after;
  let client: Client | undefined;
  let failures = 0;
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const reconnect = () => {
    if (stopped || retryTimer) return;
    options.onStatus('reconnecting');
    void client?.dispose();
    retryTimer = setTimeout(
      () => {
        retryTimer = undefined;
        void resume();
      },
      retryDelaysMs[Math.min(failures++, retryDelaysMs.length - 1)],
    );
  };

  /** Without an event to resume after, a new subscription would stream only what comes next. */
  async function resume() {
    if (lastId === null) {
      const missed = await options.latest().catch(() => null);
      if (missed === null) return reconnect();
      for (const event of missed) {
        lastId = event.id;
        options.onEvent(event);
      }
    }
    if (!stopped) connect();
  }

  function connect() {
    const current = createClient({ url, connectionParams: { authorization: `Bearer ${options.key}` }, retryAttempts: 0, lazy: false, keepAlive: 10_000 });
    client = current;
    current.on('connected', () => {
      failures = 0;
      options.onStatus('live');
    });
    current.on('closed', () => {
      if (client === current) reconnect();
    });
    current.subscribe<{ bookingEvents: FeedEvent }>(
      { query: subscription, variables: { after: lastId } },
      {
        next: ({ data }) => {
          if (!data) return;
          lastId = data.bookingEvents.id;
          options.onEvent(data.bookingEvents);
        },
        error: () => {
          if (client === current) reconnect();
        },
        complete: () => undefined,
      },
    );
  }

  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      void client?.dispose();
    },
  };
}
