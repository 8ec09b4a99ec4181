// The sub-services every emulator mounts, in order: the REST template interface and the
// GraphQL pod interface (their contract is sub-services.ts).
import type { SubServiceFactory } from './sub-services.js';
import { createTemplateService } from './rest/template-service.js';
import { createPodService } from './graphql/pod-service.js';

export const SUB_SERVICES: readonly SubServiceFactory[] = [createTemplateService, createPodService];
