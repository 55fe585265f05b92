// Package dataset loads the prompts of a benchmark run: the `random`, `random-mm`,
// `sharegpt` and `custom` datasets of `vllm bench serve`, with the same flags and, where
// upstream defines them, the same sampling rules.
//
// A Dataset is built once per process, before the run, and is immutable afterwards: every
// VU reads the same samples through At, so 100k entries cost one copy, not one per VU.
// Load fails on a malformed file before anything is sent, with an *Error that names the
// file, the line and the reason; the CLI maps every Load error to exit code 104.
//
// Token counts here are client estimates (see EstimateTokens). The summary's input tokens
// come from the server's usage; prompt_len only sizes prompts, filters ShareGPT pairs and
// fills `input_lens` when the server reports nothing.
package dataset
