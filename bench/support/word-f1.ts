/**
 * WCXB's metric, as its README (../shared/bench/wcxb-dev/README.md) states
 * it: word-level F1 of one page over lower-cased `\w+` tokens taken as
 * multisets, and the snippet rates beside it.
 */

/** Lower-cased word tokens: `\w+` read as Unicode letters, digits and the underscore. */
function tokens(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}\p{M}_]+/gu)) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1)
  return counts
}

function size(counts: Map<string, number>): number {
  let total = 0
  for (const count of counts.values()) total += count
  return total
}

/** WCXB's word-level F1 of one page. */
export function wordF1(reference: string, prediction: string): number {
  const truth = tokens(reference)
  const predicted = tokens(prediction)
  const truthSize = size(truth)
  const predictedSize = size(predicted)
  if (!truthSize) return predictedSize ? 0 : 1
  if (!predictedSize) return 0
  let overlap = 0
  for (const [token, count] of predicted) overlap += Math.min(count, truth.get(token) ?? 0)
  if (!overlap) return 0
  const precision = overlap / predictedSize
  const recall = overlap / truthSize
  return (2 * precision * recall) / (precision + recall)
}

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, ' ')

/** Shares of `with` snippets found and of `without` snippets absent; undefined where the page lists none. */
export function snippetRates(truth: { with?: string[]; without?: string[] }, prediction: string): { with?: number; without?: number } {
  const text = normalise(prediction)
  const found = (snippets: string[]) => snippets.filter((snippet) => text.includes(normalise(snippet).trim())).length
  const withs = truth.with ?? []
  const withouts = truth.without ?? []
  return {
    ...(withs.length ? { with: found(withs) / withs.length } : {}),
    ...(withouts.length ? { without: 1 - found(withouts) / withouts.length } : {}),
  }
}

