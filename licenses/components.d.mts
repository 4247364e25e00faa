// Types for licenses/components.mjs.
import type { Component } from '../tools/licenses.mjs';
export const COMPONENTS: Component[];
export const EXTRACTED: Record<string, { name: string; file?: [string, string]; text?: string }>;
