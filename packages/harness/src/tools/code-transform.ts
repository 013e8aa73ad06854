import { parse, type Node } from 'acorn'

export class CodeSyntaxError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message)
    this.name = 'SyntaxError'
  }
}

/**
 * Makes the code's completion value its result: when the last top-level
 * statement is an expression, it becomes `return (expression);`. The code
 * is then wrapped in an async function, on the same first line, so that
 * `await` works at the top and line numbers stay the user's own.
 */
export function prepareCode(code: string): string {
  let program: Node & { body: Array<Node & { type: string; expression?: Node }> }
  try {
    program = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowAwaitOutsideFunction: true,
      allowReturnOutsideFunction: true,
      locations: true,
    }) as any
  } catch (error: any) {
    const message = String(error?.message ?? error)
    if (/'import' and 'export' may appear only/.test(message)) {
      throw new CodeSyntaxError(`import and export are not available in run_code: the code can only use the \`tools\` bindings and plain JavaScript (line ${error.loc?.line}).`, error.loc?.line, error.loc?.column)
    }
    throw new CodeSyntaxError(`${message.replace(/ \(\d+:\d+\)$/, '')} at line ${error.loc?.line}, column ${(error.loc?.column ?? 0) + 1}`, error.loc?.line, error.loc?.column)
  }
  let body = code
  const last = program.body.at(-1)
  if (last?.type === 'ExpressionStatement' && last.expression) {
    const expression = code.slice(last.expression.start, last.expression.end)
    body = code.slice(0, last.start) + `return (${expression});` + code.slice(last.end)
  }
  return `(async () => { "use strict"; ${body}\n})()`
}
