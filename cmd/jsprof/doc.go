/*
Jsprof reads sampled JavaScript CPU profiles (V8 .cpuprofile files from Node,
Chrome DevTools, Deno and XS, and Chrome traces with Profile/ProfileChunk
events), reconstructs the call tree and the estimated JS calls exactly as the
Chrome DevTools trace engine does, and answers "where did the time go" from
the command line.

Usage:

	jsprof summary [--json] [--thread SEL] FILE
	jsprof top [-n N] [--by self|total] [--total SEM] [--lines] [--json] [--thread SEL] FILE
	jsprof tree [--bottom-up] [--total SEM] [--depth N] [--min PCT] [--json] [--thread SEL] FILE
	jsprof calls --json [--entries] [--thread SEL] FILE
	jsprof convert --format FORMAT [-o OUT] [--thread SEL] FILE
	jsprof version
	jsprof diff [-n N] [--by self|total] [--normalize] [--tree] [--json] [--thread SEL] FILE FILE
	jsprof merge --format FORMAT [-o OUT] [--thread SEL] FILE [FILE]
	jsprof push --url URL --name SERVICE [--label K=V] [--ingest] [--thread SEL] FILE [FILE]
	jsprof record [-o OUT] [--interval D] [--duration D] (-- node SCRIPT ARGS | --pid PID | --inspect ADDR | --chrome URL)
	jsprof view [--addr HOST:PORT] [--no-open] [--source-root DIR]… [--diff NEW] FILE

Run "jsprof -h" for details.
*/
package main
