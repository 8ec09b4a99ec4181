// Plain-text evidence shared by the JUnit, markdown and console renderers: an HTTP exchange
// and a failure's reproduction, with secrets redacted.
import { redactSecrets } from '../../errors.js';
import type { CheckResult, FuzzProperty, HttpExchange, TargetInfo } from '../../result/model.js';

const MAX_BODY_CHARS = 2_000;

function clip(body: string | undefined, bytes: number): string {
  if (body === undefined) return bytes > 0 ? `(${bytes} bytes, not kept)` : '';
  return body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}… (${bytes} bytes in all)` : body;
}

export function exchangeText(x: HttpExchange): string {
  const lines: string[] = [`> ${x.request.method} ${x.request.url}`];
  for (const [k, v] of Object.entries(x.request.headers)) lines.push(`> ${k}: ${v}`);
  const reqBody = clip(x.request.body, x.request.bodyBytes);
  if (reqBody) lines.push('>', reqBody);
  if (x.response) {
    lines.push(`< ${x.response.status} (${x.response.durationMs.toFixed(1)} ms)`);
    for (const [k, v] of Object.entries(x.response.headers)) lines.push(`< ${k}: ${v}`);
    const resBody = clip(x.response.body, x.response.bodyBytes);
    if (resBody) lines.push('<', resBody);
  }
  if (x.error) lines.push(`! ${x.error}`);
  return redactSecrets(lines.join('\n'));
}

/**
 * The `qbench fuzz` line that replays a failing property (the same line `qbench fuzz` prints):
 * target, property, seed, fast-check path, and the command sequence's replayPath when the
 * counterexample carries one.
 */
export function fuzzReplayCommand(p: FuzzProperty, target: TargetInfo): string | undefined {
  const f = p.finding;
  if (!f) return undefined;
  const targetArg = target.kind === 'emulator' ? 'emulator' : `${target.queueUrl.replace(/\/$/, '')}/v2/${target.endpointId}`;
  const parts = ['qbench fuzz', `--target ${targetArg}`, `--property ${p.name}`, `--seed ${f.seed}`];
  if (f.path !== '') parts.push(`--path ${f.path}`);
  const replayPath = /replayPath="([^"]*)"/.exec(f.counterexample)?.[1];
  if (replayPath !== undefined) parts.push(`--replay-path '${replayPath}'`);
  return redactSecrets(parts.join(' '));
}

/** The `qbench check` line that runs one check again against the same target. */
export function checkRerunCommand(c: CheckResult, target: TargetInfo): string {
  const t = target.kind === 'emulator' ? '--target emulator' : `--target ${target.queueUrl} --endpoint ${target.endpointId}`;
  const extra = [target.restUrl && c.interface === 'rest' ? `--rest-url ${target.restUrl}` : '', target.graphqlUrl && c.interface === 'graphql' ? `--graphql-url ${target.graphqlUrl}` : ''].filter(Boolean);
  return redactSecrets(['qbench check', t, ...extra, `--only ${c.id}`].join(' '));
}
