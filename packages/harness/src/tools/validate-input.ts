import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
import type { ToolInputSchema } from 'dsh-host'

/**
 * Ajv, imported and set up on the first validation: loading it and compiling
 * its meta-schema costs more than the rest of `dsh tools`, which validates
 * nothing, so a command that only lists or composes tools never pays for it.
 */
let ajv: Promise<Ajv> | undefined
const loadAjv = () => (ajv ??= import('ajv').then(({ Ajv }) => new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })))

/** The checks a schema gets when its tool registers: an object of named, closed properties. */
export function checkInputSchema(toolName: string, schema: ToolInputSchema): void {
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object') {
    throw new TypeError(`Tool ${toolName}: inputSchema must be a JSON Schema of type "object" with properties.`)
  }
  if (schema.additionalProperties !== false) {
    throw new TypeError(`Tool ${toolName}: inputSchema must be closed ("additionalProperties": false), so unknown arguments are refused.`)
  }
}

/** The validator of a checked schema, compiled when the tool is first called. */
export async function compileInputSchema(toolName: string, schema: ToolInputSchema): Promise<ValidateFunction> {
  const compiler = await loadAjv()
  try {
    return compiler.compile(schema)
  } catch (error: any) {
    throw new TypeError(`Tool ${toolName}: inputSchema is not a valid JSON Schema: ${error?.message ?? error}`)
  }
}

/** One sentence per problem, naming the argument, in words a person can act on. */
export function describeInputErrors(schema: ToolInputSchema, errors: ErrorObject[]): string[] {
  const messages = new Set<string>()
  for (const error of errors) {
    const where = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : ''
    const label = where ? `"${where}"` : 'the input'
    switch (error.keyword) {
      case 'additionalProperties': {
        const name = (error.params as { additionalProperty: string }).additionalProperty
        const path = where ? `${where}.${name}` : name
        const allowed = where ? undefined : Object.keys(schema.properties)
        messages.add(`unknown argument "${path}"` + (allowed ? ` (allowed: ${allowed.join(', ')})` : ''))
        break
      }
      case 'required':
        messages.add(`missing required argument "${where ? where + '.' : ''}${(error.params as { missingProperty: string }).missingProperty}"`)
        break
      case 'enum':
        messages.add(`${label} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(', ')}`)
        break
      case 'type':
        messages.add(`${label} must be ${(error.params as { type: string }).type}`)
        break
      default:
        messages.add(`${label} ${error.message ?? 'is not valid'}`)
    }
  }
  return [...messages]
}
