/** How a fetch provider's readers run: the extraction workers and the PDF processes, as every fetch row sets them alike. */
export interface ReaderOptions {
  /** Extraction deadline per page (default 15 s). */
  extractTimeoutMs?: number
  /** Extraction worker threads (default: cores − 1, 1 to 4). */
  extractWorkers?: number
  /** A worker is replaced after this many pages (default 2000). */
  recycleAfterJobs?: number
  /** PDFs read at once, each in a child process of its own (default 2). */
  documentProcesses?: number
  /** Resident memory of each PDF's process in MB (default 512). */
  documentMemoryMb?: number
  /** Readability gives up on pages with more elements than this (default 200,000; 0 = no limit). */
  maxElemsToParse?: number
}
