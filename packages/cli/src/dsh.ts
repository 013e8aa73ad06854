#!/usr/bin/env node
// The `dsh` command of dsh-cli: dsh-harness's program with dsh-mcp's
// commands (dsh mcp, dsh mcp token) added, run from a package that also
// depends on every plugin the shipped compositions name, so one install
// (npm install -g dsh-cli) brings the command and what its base mounts. Its
// rows resolve from the shipped config folder inside dsh-harness, then from
// where dsh-harness is installed: beside these dependencies.
import { runCommandLine } from 'dsh-harness/cli'
import { mcpCommands } from 'dsh-mcp'

runCommandLine([mcpCommands])
