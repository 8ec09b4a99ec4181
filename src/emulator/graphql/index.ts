// The GraphQL pod interface of the emulator (§2.6, §2.7, §3.2, §4.3): the sub-service factory,
// its SDL, the GPU catalogue and the deterministic utilisation model tests assert against.
export { createPodService, podSchema, GRAPHQL_PATH } from './pod-service.js';
export type { PodServiceOptions } from './pod-service.js';
export { POD_SCHEMA_SDL } from './schema-sdl.js';
export { GPU_TYPES, MACHINES, DEFAULT_CATALOGUE } from './gpu-catalogue.js';
export type { GpuCatalogue, GpuTypeSpec, MachineSpec, CloudKind, CloudPrices } from './gpu-catalogue.js';
export { Stock } from './stock.js';
export type { StockStatus, LowestPrice, PodKind } from './stock.js';
export { podUtilisation, WARMUP_SECONDS } from './utilisation.js';
export type { PodUtilisation } from './utilisation.js';
export { podHostIdOf, gpuUuidOf, runtimePortsOf } from './pod-view.js';
export { HOST_FULL_MESSAGE } from './resolvers.js';
export { BAD_USER_INPUT, SERVICE_REFUSAL } from './inputs.js';
