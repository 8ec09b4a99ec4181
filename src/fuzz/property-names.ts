// The names of the fuzz properties, in the order they run: what `qbench fuzz --property` takes.
// Apart from the properties themselves (fast-check and the oracles) so that the command's option
// declarations read them without loading the fuzzer (a unit test holds it to allProperties).
export const PROPERTY_NAMES: readonly [string, ...string[]] = [
  'job-request-validation',
  'status-ttl-query',
  'payload-caps',
  'template-validation',
  'pod-input-validation',
  'job-state-machine',
];
