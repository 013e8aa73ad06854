import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface TestCertificates {
  /** The throwaway CA's certificate (PEM). */
  ca: string
  /** A leaf for each requested name, signed by that CA. */
  leaves: Record<string, { key: string; cert: string }>
}

/** Whether `openssl` can be run (the TLS tests need it to make their certificates). */
export async function hasOpenssl(): Promise<boolean> {
  try {
    await run('openssl', ['version'])
    return true
  } catch {
    return false
  }
}

/**
 * Makes a throwaway CA and one leaf certificate per DNS name with the openssl
 * command, at test time, in a temp folder that is removed before returning:
 * nothing secret is committed and nothing outlives the test run. P-256 keys,
 * valid for a day.
 */
export async function makeTestCertificates(names: string[]): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-tls-test-'))
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  try {
    await run('openssl', [
      'req', '-x509', ...ec, '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.pem'), '-days', '1', '-subj', '/CN=dsh-web test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ])
    const leaves: TestCertificates['leaves'] = {}
    for (const [index, name] of names.entries()) {
      const file = (extension: string) => join(dir, `leaf-${index}.${extension}`)
      await writeFile(file('ext'), `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`)
      await run('openssl', ['req', '-new', ...ec, '-keyout', file('key'), '-out', file('csr'), '-subj', `/CN=${name}`])
      await run('openssl', [
        'x509', '-req', '-in', file('csr'), '-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key'),
        '-set_serial', String(1000 + index), '-days', '1', '-extfile', file('ext'), '-out', file('pem'),
      ])
      leaves[name] = { key: await readFile(file('key'), 'utf8'), cert: await readFile(file('pem'), 'utf8') }
    }
    return { ca: await readFile(join(dir, 'ca.pem'), 'utf8'), leaves }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
