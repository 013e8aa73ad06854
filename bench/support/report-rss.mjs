// Preloaded into every process bench/cli-start.ts starts (the baseline too): at exit, writes the peak RSS (KiB) to fd 3.
import { writeSync } from 'node:fs'

process.on('exit', () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS))
  } catch {
    // fd 3 is not open: not started by the benchmark.
  }
})
