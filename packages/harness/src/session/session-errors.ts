import { CodedError, type CodedErrorOptions } from 'dsh-host'

const messages = {
  SESSION_WRITE_FAILED: 'An event could not be written to the session log; nothing of it was recorded.',
  SESSION_LOG_DAMAGED: 'The session log has damaged lines.',
  SESSION_NOT_FOUND: 'There is no such session.',
  SESSION_EXISTS: 'The session already exists.',
  SESSION_INVALID_ID: 'That is not a session id.',
} as const

export type SessionErrorCode = keyof typeof messages

/** Every failure of the session service a caller can act on. */
export class SessionError extends CodedError<SessionErrorCode> {
  constructor(code: SessionErrorCode, message: string = messages[code], options: CodedErrorOptions = {}) {
    super(code, message, options)
    this.name = 'SessionError'
  }
}

const reasons: Record<string, [string, (dir: string) => string]> = {
  ENOSPC: ['no space is left on the device', (dir) => `free space on the disk that holds ${dir} and try again`],
  EDQUOT: ['the disk quota is used up', (dir) => `free space within your quota on the disk that holds ${dir} and try again`],
  EFBIG: ['the file is larger than this system allows', (dir) => `start a new session (the log is in ${dir})`],
  EIO: ['the disk reported an input/output error', (dir) => `check the disk that holds ${dir}`],
  EROFS: ['the file system is read-only', (dir) => `remount the disk that holds ${dir} read-write, or set DSH_HOME elsewhere`],
  EACCES: ['permission was denied', (dir) => `make ${dir} yours and writable (chmod 700)`],
  EPERM: ['the operation is not permitted', (dir) => `make ${dir} yours and writable (chmod 700)`],
  ENOENT: ['the session\'s log or folder was removed while the session was open', (dir) => `open or create the session again (it was in ${dir})`],
}

/**
 * A failed write (ENOSPC, EIO, ...) as `SESSION_WRITE_FAILED`, saying what
 * failed, that nothing of the event was kept, and how to fix it.
 */
export function writeFailure(error: any, what: string, dir: string): unknown {
  // Typed errors pass as they are, and anything that is not a system error is a bug and stays one.
  if (CodedError.is(error) || typeof error?.code !== 'string' || typeof error?.syscall !== 'string') return error
  const code: string = error.code
  const [reason, fix] = reasons[code] ?? [error.message, () => `check ${dir} and try again`]
  return new SessionError(
    'SESSION_WRITE_FAILED',
    `${what} failed: ${reason} (${code}). Nothing of the event was recorded and the log is as it was. Fix: ${fix(dir)}.`,
    { cause: error, retryable: code === 'ENOSPC' || code === 'EDQUOT', details: { path: dir, errno: code } },
  )
}
