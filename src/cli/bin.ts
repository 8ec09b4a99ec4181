#!/usr/bin/env node
// The thin bin: everything lives in main.ts so tests can call it without a process.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
