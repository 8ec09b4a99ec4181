// The REST template interface of the emulator (§2.5, §4.2): the sub-service factory and the
// shared template store.
export { createTemplateService } from './template-service.js';
export { TemplateStore, templateStoreFor } from './template-store.js';
export type { StoredTemplate, TemplateFields, TemplateRecordOut, ReleaseState } from './template-store.js';
export { parseTemplateCreate, parseTemplateUpdate } from './template-validation.js';
export type { FieldProblem, Parsed, TemplateUpdateBody } from './template-validation.js';
export { MAX_DOCUMENT_BODY_BYTES } from '../json-io.js';
