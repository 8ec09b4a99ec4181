// The conformance suite: the clause list and every check, in report order.
import type { CheckDefinition, Suite } from 'qbench/suite';
import { CLAUSES } from './clauses.js';
import { answerChecks } from './queue/answers.js';
import { lifecycleChecks } from './queue/lifecycle.js';
import { ttlRetentionChecks } from './queue/ttl-retention.js';
import { validationChecks } from './queue/validation.js';
import { compatChecks } from './queue/compat.js';
import { templateChecks } from './templates.js';
import { podChecks } from './pods.js';
import { rateLimitChecks } from './queue/rate-limits.js';
import { concurrencyChecks } from './queue/concurrency.js';
import { streamWebhookChecks } from './queue/stream-webhook.js';

export const CHECKS: readonly CheckDefinition[] = [
  ...answerChecks,
  ...validationChecks,
  ...lifecycleChecks,
  ...ttlRetentionChecks,
  ...streamWebhookChecks,
  ...compatChecks,
  ...rateLimitChecks,
  ...concurrencyChecks,
  ...templateChecks,
  ...podChecks,
];

export const conformanceSuite: Suite = { clauses: CLAUSES, checks: CHECKS };
export { CLAUSES };

/** What the CLI loads from this file, by path, as it loads a scenario file. */
export default conformanceSuite;
