// A TCP proxy for fault tests: it stands between the processes and PostgreSQL or Redis and lets a test make the
// network slow or silent without a reset, the ways databases usually fail in production.
//   pass           forwards at once
//   { delayMs }    forwards each chunk, in order, delayMs after it arrived (a brownout: every round trip is slower)
//   hold           a blackhole that holds: connections stay open, new ones are accepted, nothing is forwarded; what
//                  was sent meanwhile is delivered when the mode changes back (TCP retransmits it), unless the sender
//                  reset its side first (then the kernel dropped it, and the proxy drops it and closes the other side)
//   drop           a blackhole that drops: as hold, but what is sent meanwhile is lost; when the mode changes back,
//                  the connections that lost data are cut (TCP gave up on them) and new ones work again
// Never sends a reset by itself while silent. Not for production.
import net from 'node:net';

/**
 * @param {{ port: number, host?: string }} target
 * @param {{ port?: number }} [o]
 */
export async function startFaultProxy(target, o = {}) {
  const host = target.host ?? '127.0.0.1';
  /** @type {'pass' | 'hold' | 'drop' | { delayMs: number }} */
  let mode = 'pass';
  /** @type {Set<Pipe>} */
  const pipes = new Set();
  let accepted = 0;

  class Pipe {
    /** @param {net.Socket} client */
    constructor(client) {
      this.client = client;
      this.upstream = net.connect(target.port, host);
      this.lost = false;
      this.closed = false;
      /** @type {Array<{ to: net.Socket, data: Buffer }>} */
      this.held = [];
      pipes.add(this);
      const close = () => {
        if (this.closed) return;
        this.closed = true;
        pipes.delete(this);
        this.held = [];
        // A side that ended or reset: the other side hears it, after what is already on its way in delay mode.
        setTimeout(() => {
          this.client.destroy();
          this.upstream.destroy();
        }, typeof mode === 'object' ? mode.delayMs : 0);
      };
      for (const [from, to] of [[this.client, this.upstream], [this.upstream, this.client]]) {
        from.on('data', (data) => this.carry(to, data));
        from.on('error', close);
        from.on('close', close);
      }
    }
    /** @param {net.Socket} to @param {Buffer} data */
    carry(to, data) {
      if (this.closed) return;
      if (mode === 'pass') {
        if (this.held.length) this.held.push({ to, data });
        else to.write(data);
      } else if (mode === 'hold') this.held.push({ to, data });
      else if (mode === 'drop') this.lost = true;
      else {
        const delayMs = mode.delayMs;
        // Already on its way: delivered even if the sender has reset since (the reset follows it).
        setTimeout(() => !to.destroyed && to.write(data), delayMs);
      }
    }
    release() {
      if (this.closed) return;
      if (this.lost) {
        this.client.destroy();
        this.upstream.destroy();
        return;
      }
      for (const { to, data } of this.held.splice(0)) to.write(data);
    }
  }

  const server = net.createServer((client) => {
    accepted++;
    new Pipe(client);
  });
  await new Promise((resolve) => server.listen(o.port ?? 0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  return {
    port,
    /** @param {'pass' | 'hold' | 'drop' | { delayMs: number }} next */
    set(next) {
      mode = next;
      if (next === 'pass' || typeof next === 'object') for (const p of [...pipes]) p.release();
    },
    get mode() {
      return mode;
    },
    get connections() {
      return pipes.size;
    },
    get accepted() {
      return accepted;
    },
    async close() {
      for (const p of [...pipes]) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
