import { Worker } from 'node:worker_threads'
import { type ConvertOutput, convertDocument } from '../convert/convert-body.js'
import { inflateBody } from '../convert/decode-body.js'
import { DocumentError } from './document-error.js'
import { type DocumentJob, type DocumentReply, MEMORY_CAP_MARK } from './document-protocol.js'

/**
 * Documents (PDFs) read one at a time in a process of their own, started by
 * DocumentProcesses. pdf.js keeps what it inflates in ArrayBuffers,
 * outside the V8 heap, where no worker's heap limit reaches; so a watchdog
 * thread reads this whole process's resident memory every few milliseconds
 * and, past the cap, says so on stderr and kills the process at once (the
 * main thread may be inside one synchronous inflate that would never yield
 * to a check of its own).
 */
// pdf.js ships megabytes of source maps, which Node reads when source maps are on (--enable-source-maps in
// NODE_OPTIONS, or tsx): measured 84 MB more resident before the first page. Its stack traces are not worth it.
process.setSourceMapsEnabled(false)

const capBytes = Number(process.env.DSH_DOCUMENT_RSS_CAP_BYTES)
const everyMs = Number(process.env.DSH_DOCUMENT_RSS_CHECK_MS)
if (!(capBytes > 0 && everyMs > 0)) throw new Error('document-child needs DSH_DOCUMENT_RSS_CAP_BYTES and DSH_DOCUMENT_RSS_CHECK_MS')

const watchdog = new Worker(
  `const { workerData } = require('node:worker_threads')
  const { writeSync } = require('node:fs')
  setInterval(() => {
    const rss = process.memoryUsage.rss()
    if (rss > workerData.capBytes) {
      writeSync(2, '\\n' + ${JSON.stringify(MEMORY_CAP_MARK)} + rss + '\\n')
      process.kill(process.pid, 'SIGKILL')
    }
  }, workerData.everyMs)`,
  { eval: true, workerData: { capBytes, everyMs }, resourceLimits: { maxOldGenerationSizeMb: 16 } },
)
watchdog.unref()

function memory(): { rss: number; peakRss: number } {
  return { rss: process.memoryUsage.rss(), peakRss: process.resourceUsage().maxRSS * 1024 }
}

process.on('message', async (job: DocumentJob) => {
  let reply: DocumentReply
  try {
    const input = job.encoded ? { ...job.input, bytes: inflateBody(job.input.bytes, job.encoded.encodings, job.encoded.maxBytes) } : job.input
    const output: ConvertOutput = await convertDocument(input)
    reply = { ok: true, output, ...memory() }
  } catch (error) {
    const coded = error instanceof DocumentError ? { code: error.code, details: error.details } : {}
    reply = { ok: false, message: (error as Error)?.message ?? String(error), ...coded, ...memory() }
  }
  process.send!(reply)
})

process.send!({ ready: true })
