/**
 * The token holder of the server-flood benchmark, in its own process so that its work does not
 * slow the probes the benchmark times: `CONNS` WebSocket connections with the token, each
 * sending a batch of frames every 10 ms (within the per-connection rate limit), until SIGTERM.
 *
 *   node --import tsx bench/server-flood-attacker.ts URL TOKEN MODE CONNS PER_CONN_PER_S
 *
 * MODE `flood`: `spec` frames, replies read (a busy honest-looking client, many times over);
 * `noread`: `tasks` frames (~28 KB replies for BabyAI's train split), replies never read.
 * Prints one JSON line `{frames}` on SIGTERM.
 */
import { WebSocket } from 'ws';

const [url = '', token = '', mode = 'flood', connsText = '64', rateText = '10000'] = process.argv.slice(2);
const conns = Number(connsText);
const perTick = Math.max(1, Math.round(Number(rateText) / 100));
const frame = JSON.stringify(mode === 'noread' ? { id: 1, op: 'tasks', env: 'babyai', split: 'train' } : { id: 1, op: 'spec', env: 'babyai' });
let frames = 0;

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false, autoPong: mode !== 'noread' });
    ws.on('error', () => {});
    ws.once('open', () => {
      if (mode === 'noread') ws.pause(); // never reads again (nor answers pings)
      resolve(ws);
    });
    ws.once('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
    // Closed before it opened (its socket was closed as idle under load): try again.
    ws.once('close', () => {
      if (ws.readyState === WebSocket.CLOSED && !opened) setTimeout(() => open().then(resolve, reject), 50);
    });
    let opened = false;
    ws.once('open', () => (opened = true));
  });
}

const sockets = await Promise.all(Array.from({ length: conns }, () => open()));
const timer = setInterval(() => {
  for (const ws of sockets) {
    if (ws.readyState !== WebSocket.OPEN) continue;
    // A peer that does not read is throttled by TCP too: stop writing once its own queue is long.
    if (ws.bufferedAmount > 4 * 1024 * 1024) continue;
    for (let i = 0; i < perTick; i++) ws.send(frame);
    frames += perTick;
  }
}, 10);
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  clearInterval(timer);
  process.stdout.write(`${JSON.stringify({ frames, open: sockets.filter((ws) => ws.readyState === WebSocket.OPEN).length })}\n`);
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});
