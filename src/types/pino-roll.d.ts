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
  }
  export default function pinoRoll(options: PinoRollOptions): Promise<NodeJS.WritableStream>;
}
