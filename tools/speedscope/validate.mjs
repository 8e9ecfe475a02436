#!/usr/bin/env node
// Validates speedscope files against the file-format schema that the pinned
// npm speedscope package ships (dist/release/file-format-schema.json), with
// ajv, and then checks what speedscope's importer (importSpeedscopeProfile in
// src/lib/file-format.ts, with its profile builders) rejects or mishandles
// although the schema allows it:
//
//   - frame indexes (samples, events) inside shared.frames;
//   - a sampled profile: as many weights as samples, no negative weight;
//   - an evented profile: "at" never decreasing, every close event closing
//     the frame on top of the stack, no frame left open;
//   - startValue <= endValue.
//
// Usage: node validate.mjs FILE...   (gzip input is recognised by its magic bytes)
// Prints "ok FILE: N profiles, M frames, W total weight" per valid file (the
// weights of sampled profiles plus the time evented ones have frames open) and
// the errors of the others on stderr; exits 1 if any file is invalid.

import {readFileSync} from 'node:fs'
import {gunzipSync} from 'node:zlib'
import {createRequire} from 'node:module'
import path from 'node:path'
import Ajv from 'ajv'

const require = createRequire(import.meta.url)
const schemaPath = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist', 'release', 'file-format-schema.json')
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'))
// strict: false because the schema puts "title" next to "$ref" (draft-07
// ignores such siblings, which ajv's strict mode reports).
const ajv = new Ajv({allErrors: true, strict: false})
const validateSchema = ajv.compile(schema)

function semanticErrors(file) {
  const errs = []
  const nframes = file.shared.frames.length
  const frameOK = f => Number.isInteger(f) && f >= 0 && f < nframes
  let total = 0
  file.profiles.forEach((p, i) => {
    const at = `profiles[${i}]`
    if (p.startValue > p.endValue) errs.push(`${at}: startValue ${p.startValue} > endValue ${p.endValue}`)
    if (p.type === 'sampled') {
      if (p.samples.length !== p.weights.length) {
        errs.push(`${at}: ${p.samples.length} samples but ${p.weights.length} weights`)
      }
      p.samples.forEach((st, j) => {
        st.forEach((f, k) => {
          if (!frameOK(f)) errs.push(`${at}.samples[${j}][${k}]: frame ${f} out of range [0, ${nframes})`)
        })
      })
      p.weights.forEach((w, j) => {
        if (w < 0) errs.push(`${at}.weights[${j}]: negative weight ${w}`)
        total += w
      })
    } else {
      const stack = []
      let last = -Infinity
      p.events.forEach((ev, j) => {
        const e = `${at}.events[${j}]`
        if (!frameOK(ev.frame)) errs.push(`${e}: frame ${ev.frame} out of range [0, ${nframes})`)
        if (ev.at < last) errs.push(`${e}: at ${ev.at} before the previous event's ${last}`)
        if (stack.length > 0) total += ev.at - last // time with frames open
        last = ev.at
        if (ev.type === 'O') {
          stack.push(ev.frame)
        } else if (stack.length === 0) {
          errs.push(`${e}: closes frame ${ev.frame} with no frame open`)
        } else if (stack[stack.length - 1] !== ev.frame) {
          errs.push(`${e}: closes frame ${ev.frame} while ${stack[stack.length - 1]} is open`)
        } else {
          stack.pop()
        }
      })
      if (stack.length > 0) errs.push(`${at}: ${stack.length} frames left open`)
    }
  })
  return {errs, total}
}

let failed = false
const files = process.argv.slice(2)
if (files.length === 0) {
  console.error('usage: node validate.mjs FILE...')
  process.exit(2)
}
for (const name of files) {
  let data = readFileSync(name)
  if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data)
  let file
  try {
    file = JSON.parse(data.toString('utf8'))
  } catch (e) {
    console.error(`${name}: not JSON: ${e.message}`)
    failed = true
    continue
  }
  if (!validateSchema(file)) {
    failed = true
    for (const e of validateSchema.errors.slice(0, 20)) {
      console.error(`${name}: schema: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
    }
    continue
  }
  const {errs, total} = semanticErrors(file)
  if (errs.length > 0) {
    failed = true
    for (const e of errs.slice(0, 20)) console.error(`${name}: ${e}`)
    continue
  }
  console.log(`ok ${name}: ${file.profiles.length} profiles, ${file.shared.frames.length} frames, ${total} total weight`)
}
process.exit(failed ? 1 : 0)
