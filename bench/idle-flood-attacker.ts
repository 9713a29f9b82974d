/**
 * The idle-socket attacker of the server-flood benchmark, in its own process so that a
 * reconnecting flood's work does not slow the honest clients the benchmark times (they would
 * otherwise share its event loop): `COUNT` sockets that never authenticate, until SIGTERM.
 *
 *   node --import tsx bench/idle-flood-attacker.ts PORT COUNT one|spread hold|reopen
 *
 * Prints `ready` once every socket has connected, and one JSON line `{closedByServer}` on SIGTERM.
 */
import { startIdleFlood } from './flood-peers.ts';

const [port = '0', count = '2000', from = 'one', mode = 'hold'] = process.argv.slice(2);
const flood = await startIdleFlood({ port: Number(port), count: Number(count), from: from === 'spread' ? 'spread' : 'one', reopen: mode === 'reopen' });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  const closedByServer = flood.closedByServer();
  flood.stop();
  process.stdout.write(`${JSON.stringify({ closedByServer })}\n`);
  process.exit(0);
});
