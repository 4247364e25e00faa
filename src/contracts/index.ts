// Shared contracts: what both sides of a boundary import, so neither depends
// on the other. The device actions (kinds, config keys, their validator) that
// the assistant proposes and the device applies; the turn contract and what
// the device sees of a turn (turn.ts); the provider wire's types
// (provider-wire.ts); the resource and prompt providers /mcp serves
// (mcp-sources.ts); the power profiles' table the ring and the battery
// monitor both read (power-profiles.ts). Types, tables and pure validators
// only; no state.
export * from './contract-types.ts';
export * from './device-contract.ts';
export * from './device-actions.ts';
export * from './mcp-sources.ts';
export * from './provider-wire.ts';
export * from './turn.ts';
export * from './chat.ts';
export * from './turn-spawn.ts';
export * from './system.ts';
export * from './power-profiles.ts';
