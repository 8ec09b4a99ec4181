// Setup file of the `unit` test project: a unit test runs in its own process with no network and
// no child processes, so connecting or listening on a socket, or starting a process, throws here
// and names where such a test belongs (test/integration, the `integration` project).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`a unit test may not ${what}: a test that opens sockets or starts processes belongs in test/integration`);
}

net.Socket.prototype.connect = function connect(): never {
  refuse('connect a socket');
};
net.Server.prototype.listen = function listen(): never {
  refuse('listen on a socket');
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`start a process (child_process.${name})`);
}
// The named ESM exports of node:child_process follow the patched default export from here on.
syncBuiltinESMExports();
