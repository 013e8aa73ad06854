#!/usr/bin/env node
// The `dsh` command of dsh-cli: dsh-harness's program with dsh-mcp's
// commands (dsh mcp, dsh mcp token) added, run from a package that also
// depends on every plugin the shipped compositions name, so one install
// (npm install -g dsh-cli) brings the command and what its base mounts. Its
// rows resolve from the shipped config folder inside dsh-harness, then from
// where dsh-harness is installed: beside these dependencies.
//
// `dsh mcp` on stdio answers the client's initialize before the rest loads
// (dsh-mcp/early loads only Node's own modules); the program follows.
import { answerInitializeEarly, isStdioServe } from 'dsh-mcp/early'

if (isStdioServe(process.argv.slice(2))) answerInitializeEarly()
const [{ runCommandLine }, { mcpCommands }] = await Promise.all([import('dsh-harness/cli'), import('dsh-mcp')])
runCommandLine([mcpCommands])
