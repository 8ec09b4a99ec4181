// The open-loop scheduler's FIFO of starts taken while no connection was free: order and
// values survive wrap-around and growth (a fault here would start iterations out of order or
// with the wrong intended time, silently skewing corrected latency).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StartQueue } from '../../../src/load/drive.js';

describe('StartQueue', () => {
  it('is first in, first out across wrap-around and growth, against an array model', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 3000 })), { maxLength: 60 }), (ops) => {
        const q = new StartQueue();
        const model: [number, number][] = [];
        let n = 0;
        for (const op of ops) {
          if (op === -1) {
            if (model.length === 0) continue;
            const [index, at] = model.shift()!;
            expect(q.headIndex()).toBe(index);
            expect(q.headAt()).toBe(at);
            q.shift();
          } else {
            // Push a burst of `op` starts (bursts past 1024 force growth, mid-queue).
            for (let i = 0; i < op; i++, n++) {
              q.push(n, n * 0.05 + 0.001);
              model.push([n, n * 0.05 + 0.001]);
            }
          }
          expect(q.size).toBe(model.length);
        }
        while (model.length > 0) {
          const [index, at] = model.shift()!;
          expect([q.headIndex(), q.headAt()]).toEqual([index, at]);
          q.shift();
        }
        expect(q.size).toBe(0);
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});
