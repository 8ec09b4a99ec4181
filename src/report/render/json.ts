// The JSON renderer: the model as is (the file `qbench report` and `qbench compare` read back).
import type { QbenchComparison } from '../../result/compare-model.js';
import type { QbenchResult } from '../../result/model.js';

export function renderJson(result: QbenchResult | QbenchComparison): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
