// pino-roll ships no type declarations; this is the part of its API that tsdb uses.
declare module 'pino-roll' {
  interface PinoRollOptions {
    file: string | (() => string);
    size?: number | string;
    frequency?: number | 'daily' | 'hourly';
    extension?: string;
    symlink?: boolean;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    dateFormat?: string;
    mkdir?: boolean;
    /** Passed on to its sonic-boom stream: write synchronously. */
    sync?: boolean;
    /** Passed on to its sonic-boom stream: bytes kept unwritten before lines are dropped ('drop'). */
    maxLength?: number;
  }
  export default function pinoRoll(options: PinoRollOptions): Promise<NodeJS.WritableStream>;
}
