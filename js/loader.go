package js

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// builtinPrefixes are import paths resolved at run time by the module registry, not bundled.
var builtinPrefixes = []string{"omnik", "omnik/*", "omni", "omni/*"}

// compiled is a script turned into one goja program, shared by every runtime of a run.
type compiled struct {
	path    string // absolute path of the entry file
	program *goja.Program
	digest  string // sha256 of the bundle: the pieces of one distributed run share it
}

// compile bundles the entry file and its relative imports with esbuild (ES modules and
// TypeScript become CommonJS), then compiles the result once with its source map so
// stack traces point at the user's original lines.
func compile(path string) (*compiled, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, &ScriptError{File: path, Msg: fmt.Sprintf("cannot read script: %v", err)}
	}
	return build(path, abs, []string{abs}, nil)
}

// compileSource is compile for a script held in memory, named name (a path in the
// working directory, against which its relative imports and open() resolve).
func compileSource(name string, src []byte) (*compiled, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	return build(name, abs, nil, &api.StdinOptions{
		Contents: string(src), ResolveDir: filepath.Dir(abs), Sourcefile: name, Loader: api.LoaderJS,
	})
}

// build bundles the entry at abs, read from its file (entry) or given (stdin), and
// compiles the bundle.
func build(path, abs string, entry []string, stdin *api.StdinOptions) (*compiled, error) {
	code, srcMap, err := bundle(abs, entry, stdin)
	if err != nil {
		return nil, err
	}
	// The bundle is wrapped in a function so each runtime gets its own module scope.
	name := abs + ".bundle.js"
	src := "(function(module, exports, require){" + code +
		"\n//# sourceMappingURL=" + filepath.Base(name) + ".map\n})"
	ast, err := parser.ParseFile(nil, name, src, 0, parser.WithSourceMapLoader(func(string) ([]byte, error) {
		return srcMap, nil
	}))
	if err != nil {
		return nil, &ScriptError{File: path, Msg: fmt.Sprintf("internal compile error: %v", err)}
	}
	prg, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, &ScriptError{File: path, Msg: fmt.Sprintf("internal compile error: %v", err)}
	}
	sum := sha256.Sum256([]byte(code))
	return &compiled{path: abs, program: prg, digest: hex.EncodeToString(sum[:])}, nil
}

// bundle runs esbuild on the entry and returns the bundle, its interop helpers made
// cheaper (cheapInterop), and its source map.
func bundle(abs string, entry []string, stdin *api.StdinOptions) (code string, srcMap []byte, err error) {
	res := api.Build(api.BuildOptions{
		EntryPoints:   entry,
		Stdin:         stdin,
		Bundle:        true,
		Write:         false,
		Format:        api.FormatCommonJS,
		Platform:      api.PlatformNeutral,
		Target:        api.ES2020,
		Sourcemap:     api.SourceMapExternal,
		Outfile:       abs + ".bundle.js",
		External:      builtinPrefixes,
		LogLevel:      api.LogLevelSilent,
		AbsWorkingDir: filepath.Dir(abs),
		Loader:        map[string]api.Loader{".mjs": api.LoaderJS, ".cjs": api.LoaderJS},
		Supported:     map[string]bool{"dynamic-import": false},
		Plugins:       []api.Plugin{k6Hints},
	})
	if len(res.Errors) > 0 {
		return "", nil, scriptErrorFromBuild(res.Errors)
	}
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".map") {
			srcMap = f.Contents
		} else {
			code = string(f.Contents)
		}
	}
	return cheapInterop.Replace(code), srcMap, nil
}

// cheapInterop rewrites the loops of esbuild's interop helpers (__export, __copyProps:
// every ES module script runs them) from for-in and for-of to indexed loops over the
// own names, line for line so the source map still holds. A for-in makes goja build
// every method of Object.prototype, a for-of the array iterator, in each runtime:
// ~10 KB a VU for a script that itself never loops. Text that is not esbuild's (another
// esbuild version) is left as it is; TestBundleInteropHelpersDoNotLoopWithInOrOf
// notices.
var cheapInterop = strings.NewReplacer(
	"  for (var name in all)\n    __defProp(target, name, { get: all[name], enumerable: true });\n",
	"  for (var names = __getOwnPropNames(all), i = 0; i < names.length; i++)\n    __defProp(target, names[i], { get: all[names[i]], enumerable: true });\n",
	"    for (let key of __getOwnPropNames(from))\n      if (!__hasOwnProp.call(to, key) && key !== except)\n",
	"    for (let names = __getOwnPropNames(from), i = 0, key; i < names.length; i++)\n      if (key = names[i], !__hasOwnProp.call(to, key) && key !== except)\n",
)

func scriptErrorFromBuild(msgs []api.Message) error {
	m := msgs[0]
	e := &ScriptError{Msg: m.Text}
	if loc := m.Location; loc != nil {
		e.File, e.Line, e.Col, e.LineText = loc.File, loc.Line, loc.Column+1, loc.LineText
	}
	if len(msgs) > 1 {
		e.Msg += fmt.Sprintf(" (and %d more errors)", len(msgs)-1)
	}
	return e
}
