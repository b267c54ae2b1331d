/**
 * A TCP proxy in front of a database (PostgreSQL, MariaDB), so a test can make the database unreachable
 * (refuse or silently swallow connections) and bring it back, without stopping the server.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'blackhole';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly clients = new Set<Socket>();
  port = 0;
  mode: ProxyMode = 'forward';

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = this.port): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  private accept(client: Socket): void {
    this.track(client);
    this.clients.add(client);
    client.on('close', () => this.clients.delete(client));
    if (this.mode === 'blackhole') return; // hold the connection open and never answer
    const upstream = createConnection(this.targetPort, this.targetHost);
    this.track(upstream);
    client.pipe(upstream).pipe(client);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }

  /** Stops listening and cuts every open connection: the database is gone. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** How many client connections are open through the proxy. */
  openConnections(): number {
    let open = 0;
    for (const client of this.clients) if (!client.destroyed) open++;
    return open;
  }

  /** Cuts every open connection but keeps listening. */
  cutConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}
