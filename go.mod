module github.com/jsprof/jsprof

go 1.26.8

require github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe

require github.com/coder/websocket v1.8.15
