// The discrete-event mode of the emulator: traffic profiles and their seeded arrivals, twins, and
// `simulate`, which runs the emulator's own endpoint on a virtual clock and answers its figures.
export { simulate, simulatedConfig, type SimulateOptions } from './simulate.js';
export {
  Arrivals,
  Burst,
  InputClass,
  MAX_ARRIVALS,
  MAX_DURATION_S,
  MAX_RATE_PER_SEC,
  REPLAY_FORMATS,
  TrafficProfile,
  arrivalSchedule,
  parseTrafficProfile,
  trafficDurationMs,
  trafficFromFlags,
  type ArrivalSchedule,
  type ReplayFormat,
  type TrafficProfileInput,
} from './traffic.js';
export { loadTrafficProfile, loadResultRates, parseCsvTimes, parseJsonlTimes, readReplay } from './replay.js';
export { loadTwin, parseTwin } from './twin.js';
export { VirtualClock } from '../emulator/clock.js';
export type { LatencyQuantiles, ScalingSettings, SimulationFigures } from './types.js';
