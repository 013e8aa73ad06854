import { parse, type Node } from 'acorn'

export class CodeSyntaxError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number, readonly importExport = false) {
    super(message)
    this.name = 'SyntaxError'
  }
}

export type CodeLanguage = 'javascript' | 'typescript'

/**
 * Prepares the model's code for the sandbox. TypeScript is turned into
 * JavaScript by blanking its types out (ts-blank-space), which keeps every
 * position, so line numbers in errors stay the user's own. Without a
 * language, code that does not parse as JavaScript is tried as TypeScript.
 */
export async function prepareCode(code: string, language?: CodeLanguage): Promise<string> {
  if (language === 'typescript') return wrapProgram(await stripTypes(code))
  try {
    return wrapProgram(code)
  } catch (error) {
    if (language === 'javascript' || !(error instanceof CodeSyntaxError) || error.importExport) throw error
    let stripped: string
    try {
      stripped = await stripTypes(code)
    } catch {
      throw error
    }
    if (stripped === code) throw error
    try {
      return wrapProgram(stripped)
    } catch {
      throw error
    }
  }
}

async function stripTypes(code: string): Promise<string> {
  const { default: tsBlankSpace } = await import('ts-blank-space')
  const unsupported: string[] = []
  const output = tsBlankSpace(code, (node) => {
    // Positions only: the parser may not have set parent pointers, so no getSourceFile().
    const text = code.slice(node.pos, node.end)
    const start = node.pos + (text.length - text.trimStart().length)
    const line = code.slice(0, start).split('\n').length
    unsupported.push(`line ${line}: ${text.trim().split('\n')[0].slice(0, 60)}`)
  })
  if (unsupported.length) {
    throw new CodeSyntaxError(
      `This TypeScript cannot run as JavaScript by removing its types (enums, namespaces, parameter properties and the like are not supported): ${unsupported.join('; ')}. Write those parts as plain JavaScript.`,
    )
  }
  return output
}

/**
 * Makes the code's completion value its result: when the last top-level
 * statement is an expression, it becomes `return (expression);`. The code
 * is then wrapped in an async function, on the same first line, so that
 * `await` works at the top and line numbers stay the user's own.
 */
function wrapProgram(code: string): string {
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
      throw new CodeSyntaxError(`import and export are not available in run_code: the code can only use the \`tools\` bindings and plain JavaScript (line ${error.loc?.line}).`, error.loc?.line, error.loc?.column, true)
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
