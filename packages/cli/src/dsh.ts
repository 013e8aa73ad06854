#!/usr/bin/env node
// The `dsh` command of dsh-cli: dsh-harness's CLI, run from a package that also
// depends on every plugin the shipped compositions name, so one install
// (npm install -g dsh-cli) brings the command and what its base mounts. The
// harness's CLI runs when it is imported; its rows resolve from the shipped
// config folder inside dsh-harness, then from where dsh-harness is installed:
// beside these dependencies.
import 'dsh-harness/cli'
