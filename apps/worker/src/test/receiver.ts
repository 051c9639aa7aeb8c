import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** A webhook receiver on 127.0.0.1: records every request; `answer` decides each reply (a status, or 'hang'). */
export class Receiver {
  readonly requests: Array<{ headers: IncomingHttpHeaders; body: string; at: number }> = [];
  answer: (n: number, delivery: string) => number | 'hang' = () => 200;
  private server: Server | undefined;
  private readonly hung: ServerResponse[] = [];
  port = 0;
  onRequest: (() => void) | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body, at: Date.now() });
        this.onRequest?.();
        const a = this.answer(this.requests.length, String(req.headers['x-tracker-delivery']));
        if (a === 'hang') this.hung.push(res);
        else res.writeHead(a, { 'content-type': 'text/plain' }).end(a >= 300 ? `receiver says ${a}` : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
  }

  /** Requests answered 2xx, by delivery id. */
  deliveryIds(): string[] {
    return this.requests.map((r) => String(r.headers['x-tracker-delivery']));
  }

  async stop(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
