// The name the emulator's GET /_qbench/info document carries (src/spec/schemas/emulator-info.ts
// is its one schema; src/target reads it): a reader tells the emulator's document by it.
import { EmulatorInfoDocument } from '../spec/index.js';

export const EMULATOR_INFO_NAME = EmulatorInfoDocument.shape.name.value;
