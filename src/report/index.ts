// The reports of a run: renderers of the result model (JSON, HTML, JUnit, markdown, console),
// writing every format into a report directory, and `qbench compare` and `qbench merge`.
// The model itself lives in src/result/.
export { renderJson } from './render/json.js';
export { renderHtml, renderComparisonHtml } from './render/html.js';
export { renderJunit, renderComparisonJunit } from './render/junit.js';
export { renderMarkdown, renderComparisonMarkdown } from './render/markdown.js';
export { renderConsole, renderComparisonConsole } from './render/console.js';
export type { ConsoleOptions } from './render/console.js';
export { validityWarnings } from './render/format.js';
export { writeAllReports, writeComparisonReports, timestampDirName, REPORT_FILES, COMPARISON_FILES } from './write-all.js';
export type { WrittenReports, WriteAllOptions } from './write-all.js';
export { compareResults, parseMaxRegression, DEFAULT_MAX_REGRESSION, COMPARE_LIMITS } from './compare.js';
export type { CompareOptions } from './compare.js';
export { mergeResults } from './merge.js';
export type { MergeInput, MergeOptions } from './merge.js';
