// @ts-check
/**
 * The page's WebSocket to `/live`: hands every frame to the store, shows the connection state,
 * and reconnects (2 s, then up to 10 s apart) when the server goes away, e.g. between two runs.
 */

/**
 * @param {import('./store.js').Store} store
 * @param {(state: 'connecting' | 'live' | 'lost', detail?: string) => void} onState
 */
export function connectLive(store, onState) {
  let delay = 2_000;
  /** @type {WebSocket | undefined} */
  let ws;
  const open = () => {
    onState('connecting');
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/live`;
    ws = new WebSocket(url);
    ws.onopen = () => {
      delay = 2_000;
      onState('live');
    };
    ws.onmessage = (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return console.warn('dashboard: a frame that is not JSON was skipped');
      }
      store.apply(frame);
    };
    ws.onclose = (event) => {
      onState('lost', event.reason || (event.code === 1006 ? 'connection lost' : `closed (${event.code})`));
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10_000);
    };
  };
  open();
  // A tab that slept may have missed a lot: ask for the whole state again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && ws?.readyState === WebSocket.OPEN) ws.send('{"op":"resync"}');
  });
}
