// Types for tools/console.mjs.
import type { SerialPort } from 'serialport';

export class ConsoleTimeout extends Error {}

export interface ConsoleReply {
  /** Output lines, without the "> " escape of lines that read like a final line. */
  lines: string[];
  /** "OK" or "ERR <reason>". */
  final: string;
  ok: boolean;
  /** The text after "ERR ", or null. */
  reason: string | null;
}

export interface ConsoleClient {
  readonly port: SerialPort;
  onOutput(listener: (text: string) => void): void;
  write(data: string | Uint8Array): Promise<void>;
  discard(): void;
  waitFor<T>(test: (unread: string) => T | null | undefined | false, timeoutMs: number): Promise<T>;
  takeReply(): ConsoleReply | null;
  command(line: string, options?: { timeoutMs?: number }): Promise<ConsoleReply>;
  waitReady(options?: { timeoutMs?: number; quietMs?: number }): Promise<void>;
  close(): Promise<void>;
}

export function openConsole(path: string, options?: { baudRate?: number }): Promise<ConsoleClient>;
