import YAML, { isAlias, isMap, isNode, isSeq, type Node } from 'yaml'

/**
 * A composition file's text to plain data, by YAML 1.2's core schema, keys
 * unique. Data only: explicit YAML tags (`!!js/function` and the like) are
 * refused, since other loaders evaluate them. Loaded only when a layer must
 * be parsed (the yaml package is a third of dsh's own start). What is
 * wrong with the text comes back as a message naming the file and line.
 */
export function parseYamlData(file: string, text: string): { data: unknown } | { problem: string } {
  const doc = YAML.parseDocument(text, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: true })
  if (doc.errors.length) return { problem: `${file}: not valid YAML: ${doc.errors[0].message}` }
  let tagProblem: string | undefined
  YAML.visit(doc, {
    Node(_key, node) {
      const explicit = (node as Node & { tag?: string }).tag
      if (explicit && !tagProblem) {
        const row = rowAround(doc, node)
        tagProblem = `${file}${where(text, node)}: ${row ? `row "${row}": ` : ''}the YAML tag ${explicit.replace('tag:yaml.org,2002:', '!!')} is not allowed; composition files hold plain data, never code or typed values.`
      }
    },
  })
  if (tagProblem) return { problem: tagProblem }
  return { data: doc.toJS({ maxAliasCount: 50 }) as unknown }
}

/** The id of the top-level row that contains `node`, when it has one. */
function rowAround(doc: YAML.Document, node: Node): string | undefined {
  const offset = node.range?.[0]
  const top = doc.contents
  if (offset === undefined || !isSeq(top)) return undefined
  for (const item of top.items) {
    if (isMap(item) && item.range && item.range[0] <= offset && offset <= item.range[2]) {
      const id = item.get('id')
      return typeof id === 'string' ? id : undefined
    }
  }
  return undefined
}

function where(text: string, node: unknown): string {
  if (!isNode(node) && !isAlias(node)) return ''
  const offset = (node as Node).range?.[0]
  if (offset === undefined) return ''
  const line = text.slice(0, offset).split('\n').length
  return `:${line}`
}
