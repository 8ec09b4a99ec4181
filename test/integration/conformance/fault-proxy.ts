// A TCP proxy whose path is faulty, not its target: each piece of an answer on its way back is,
// with seeded probabilities, cut off after part of it with a TCP reset, or held for a stall
// before it goes on. The target behind it is untouched, so every answer that arrives whole is
// the target's own. Used to prove that path faults never turn into contract failures.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { seededRng } from '../../../src/deployment/random.js';

export interface FaultProxyOptions {
  /** Upstream host:port. */
  readonly upstream: { readonly host: string; readonly port: number };
  /** Probability that a piece of an answer is cut off halfway with a reset. */
  readonly resetRate: number;
  /** Probability that a piece of an answer waits `stallMs` before it goes on. */
  readonly stallRate: number;
  readonly stallMs: number;
  /** Reset the very first connection's first answer (the preflight's). */
  readonly resetFirst?: boolean;
  readonly seed: number;
}

export interface FaultProxy {
  readonly url: string;
  readonly resets: () => number;
  readonly stalls: () => number;
  close(): Promise<void>;
}

export async function startFaultProxy(o: FaultProxyOptions): Promise<FaultProxy> {
  // Seeded, so a run's faults replay from its seed.
  const rng = seededRng(o.seed);
  const random = (): number => rng.next();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let resets = 0;
  let stalls = 0;
  let first = o.resetFirst === true;
  const server: Server = createServer((client) => {
    const up = connect(o.upstream.port, o.upstream.host);
    sockets.add(client);
    sockets.add(up);
    const resetFirstHere = first;
    first = false;
    // Pieces of the answer go back in order: a stalled piece holds the ones behind it.
    let chain = Promise.resolve();
    const end = () => {
      client.destroy();
      up.destroy();
    };
    client.on('data', (d: Buffer) => up.write(d));
    up.on('data', (d: Buffer) => {
      const roll = random();
      const reset = resetFirstHere && resets === 0 ? true : roll < o.resetRate;
      const stall = !reset && roll >= o.resetRate && roll < o.resetRate + o.stallRate;
      chain = chain.then(async () => {
        if (client.destroyed) return;
        if (stall) {
          stalls += 1;
          await new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              timers.delete(t);
              resolve();
            }, o.stallMs);
            timers.add(t);
          });
        }
        if (client.destroyed) return;
        if (reset) {
          resets += 1;
          client.write(d.subarray(0, Math.floor(d.length / 2)));
          client.resetAndDestroy();
          up.destroy();
          return;
        }
        client.write(d);
      });
    });
    up.on('end', () => void chain.then(() => client.end()));
    client.on('end', () => up.end());
    for (const s of [client, up]) {
      s.on('error', end);
      s.on('close', () => {
        sockets.delete(s);
        end();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    resets: () => resets,
    stalls: () => stalls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
