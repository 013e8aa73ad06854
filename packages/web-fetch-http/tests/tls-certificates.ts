import { readFileSync } from 'node:fs'

export interface TestCertificates {
  /** The throwaway CA's certificate (PEM). */
  ca: string
  /** A leaf for each name, signed by that CA. */
  leaves: Record<string, { key: string; cert: string }>
}

/** The names fixtures/tls/ holds a leaf certificate for. */
export const CERTIFICATE_NAMES = ['secure.test', 'other.test'] as const

/**
 * The throwaway CA and leaf certificates committed under fixtures/tls/
 * (test-only keys, valid for 100 years; its README has the openssl commands
 * that made them).
 */
export function loadTestCertificates(): TestCertificates {
  const read = (file: string) => readFileSync(new URL(`./fixtures/tls/${file}`, import.meta.url), 'utf8')
  const leaves: TestCertificates['leaves'] = {}
  for (const name of CERTIFICATE_NAMES) leaves[name] = { key: read(`${name}.key`), cert: read(`${name}.pem`) }
  return { ca: read('ca.pem'), leaves }
}
