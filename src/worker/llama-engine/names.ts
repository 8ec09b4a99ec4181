// The optional package the real-engine worker runs on, and how a user installs it (light: the
// CLI's option table reads these without loading the engine).
export const LLAMA_PACKAGE = 'node-llama-cpp';
export const LLAMA_INSTALL = `npm i ${LLAMA_PACKAGE}`;
