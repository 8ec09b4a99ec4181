// The names `qbench fuzz --property` accepts are declared apart from the properties (so that the
// option declarations load no fuzzer): they must be the properties' own names, in their order.
import { describe, expect, it } from 'vitest';
import { PROPERTY_NAMES } from '../../../src/fuzz/property-names.js';
import { allProperties } from '../../../src/fuzz/runner.js';

describe('fuzz property names', () => {
  it('are the names of every property, in the order they run', () => {
    expect(PROPERTY_NAMES).toEqual(allProperties({ maxCommands: 1, replayPath: undefined }).map((p) => p.name));
  });
});
