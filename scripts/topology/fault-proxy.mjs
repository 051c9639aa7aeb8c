// A TCP proxy for fault tests: it stands between the processes and PostgreSQL or Redis and lets a test make the
// network slow or silent without a reset, the ways databases usually fail in production.
//   pass           forwards at once
//   { delayMs }    forwards each chunk, in order, delayMs after it arrived (a brownout: every round trip is slower)
//   { delayMs, replies: true }
//                  delays only what the server sends back: a statement reaches the server (and may commit) at once,
//                  its answer comes delayMs later
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
  /** @type {'pass' | 'hold' | 'drop' | { delayMs: number, replies?: boolean }} */
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
      /** Chunks on their way (delay mode) to the server and to the client, in order. @type {Array<{ due: number, data: Buffer }>} */
      this.up = [];
      /** @type {Array<{ due: number, data: Buffer }>} */
      this.down = [];
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
        else this.send(to, data, 0);
      } else if (mode === 'hold') this.held.push({ to, data });
      else if (mode === 'drop') this.lost = true;
      else if (mode.replies && to === this.upstream) {
        if (this.held.length) this.held.push({ to, data });
        else this.send(to, data, 0);
      } else this.send(to, data, mode.delayMs);
    }
    /**
     * Writes `data` to `to` after `delayMs`, never before what is still on its way to `to` (a chunk delayed before the
     * mode changed back is not overtaken). Already on its way: delivered even if the sender has reset since (the
     * reset follows it).
     * @param {net.Socket} to @param {Buffer} data @param {number} delayMs
     */
    send(to, data, delayMs) {
      const queue = to === this.upstream ? this.up : this.down;
      if (!delayMs && !queue.length) return void to.write(data);
      queue.push({ due: Date.now() + delayMs, data });
      if (queue.length === 1) this.drain(to, queue);
    }
    /** @param {net.Socket} to @param {Array<{ due: number, data: Buffer }>} queue */
    drain(to, queue) {
      const next = queue[0];
      if (!next) return;
      setTimeout(() => {
        while (queue.length && queue[0].due <= Date.now()) {
          const { data } = /** @type {{ data: Buffer }} */ (queue.shift());
          if (!to.destroyed) to.write(data);
        }
        this.drain(to, queue);
      }, Math.max(0, next.due - Date.now()));
    }
    release() {
      if (this.closed) return;
      if (this.lost) {
        this.client.destroy();
        this.upstream.destroy();
        return;
      }
      for (const { to, data } of this.held.splice(0)) this.send(to, data, 0);
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
    /** @param {'pass' | 'hold' | 'drop' | { delayMs: number, replies?: boolean }} next */
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
