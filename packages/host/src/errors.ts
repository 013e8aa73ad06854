/**
 * The typed-error base every plugin's errors build on. A tools service turns
 * a thrown `CodedError` from any plugin into an error outcome with its code and
 * message (the model reads them); anything else thrown is a bug.
 */

/** What `details` may hold: identifiers and figures, never headers or keys. */
export interface CodedErrorDetails {
  [key: string]: string | number | boolean | string[] | undefined
}

export interface CodedErrorOptions<Details extends CodedErrorDetails = CodedErrorDetails> {
  details?: Details
  cause?: unknown
  retryable?: boolean
}

const brand = Symbol.for('dsh-host.CodedError')

export class CodedError<Code extends string = string, Details extends CodedErrorDetails = CodedErrorDetails> extends Error {
  readonly [brand] = true
  readonly code: Code
  readonly details: Details
  readonly retryable: boolean

  constructor(code: Code, message: string, options: CodedErrorOptions<Details> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'CodedError'
    this.code = code
    this.details = options.details ?? ({} as Details)
    this.retryable = options.retryable ?? false
  }

  /** Recognises a CodedError (or a subclass) from any copy of this package. */
  static is(value: unknown): value is CodedError {
    return typeof value === 'object' && value !== null && (value as any)[brand] === true
  }

  /** The shape a tool outcome carries. */
  toJSON() {
    return { name: this.name, code: this.code, message: this.message, retryable: this.retryable, details: this.details }
  }
}

/** The artifact writer could not write the whole content. */
export class ArtifactWriteError extends CodedError<'ARTIFACT_WRITE_FAILED'> {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super('ARTIFACT_WRITE_FAILED', message, options)
    this.name = 'ArtifactWriteError'
  }

  static override is(value: unknown): value is ArtifactWriteError {
    return CodedError.is(value) && value.code === 'ARTIFACT_WRITE_FAILED'
  }
}
