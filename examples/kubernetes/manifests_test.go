// Package kubernetes_test checks the manifests of examples/kubernetes: every document
// decodes strictly into its real Kubernetes API type, and the runner and merge Jobs keep
// the invariants a distributed run depends on (docs/distributed.md).
package kubernetes_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// startAtPlaceholder is what the docs' sed replaces with the start time.
const startAtPlaceholder = "@START_AT@"

// runIDField is the label the Job controller puts on every pod of one Job, new each run.
const runIDField = "metadata.labels['batch.kubernetes.io/controller-uid']"

// credentialName is an environment variable that holds a secret by its name.
var credentialName = regexp.MustCompile(`(?i)(key|token|secret|password)`)

// literalCredential is a bearer token or an OpenAI-style key written out.
var literalCredential = regexp.MustCompile(`(?i)bearer\s+[a-z0-9._-]{8,}|\bsk-[a-z0-9_-]{8,}`)

func TestManifestsDecodeStrictlyAndKeepTheInvariants(t *testing.T) {
	t.Parallel()
	files, err := readManifests(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := check(files); err != nil {
		t.Fatal(err)
	}
}

// TestTheDocumentedSubstitutionGivesAStartTime applies job.yaml's sed line to the file.
func TestTheDocumentedSubstitutionGivesAStartTime(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(90 * time.Second).UTC().Format("2006-01-02T15:04:05Z")
	// What the sed line in job.yaml does: it replaces the first on a line, none holds two.
	v, err := decodeStrict([]byte(strings.ReplaceAll(string(b), startAtPlaceholder, at)))
	if err != nil {
		t.Fatal(err)
	}
	got := env(v.(*batchv1.Job).Spec.Template.Spec.Containers[0], "OMNIK_START_AT")
	if got == nil {
		t.Fatal("no OMNIK_START_AT")
	}
	if _, err := time.Parse(time.RFC3339, got.Value); err != nil {
		t.Errorf("OMNIK_START_AT after substitution: %v", err)
	}
}

// TestBrokenManifestsFail pins that each kind of mistake fails the check, with a message
// that points at it.
func TestBrokenManifestsFail(t *testing.T) {
	t.Parallel()
	good, err := readManifests(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"misspelled field", "job.yaml", "completionMode: Indexed", "completionMod: Indexed", `unknown field "spec.completionMod"`},
		{"field in another case", "job.yaml", "completionMode: Indexed", "completionmode: Indexed", `unknown field "spec.completionmode"`},
		{"field at the wrong level", "job.yaml", "  completionMode: Indexed", "  restartPolicy: Never\n  completionMode: Indexed", `unknown field "spec.restartPolicy"`},
		{"duplicate key", "job.yaml", "  parallelism: 4", "  parallelism: 4\n  parallelism: 4", `"parallelism" already set`},
		{"number where a string goes", "job.yaml", `value: "4" # must equal completions`, "value: 4", "cannot unmarshal number into Go struct field EnvVar"},
		{"string where a number goes", "job.yaml", "  parallelism: 4", `  parallelism: "4"`, "cannot unmarshal string into Go struct field JobSpec.spec.parallelism"},
		{"unknown kind", "pvc.yaml", "kind: PersistentVolumeClaim", "kind: PersistentVolume", `unknown kind "PersistentVolume"`},
		{"parallelism != completions", "job.yaml", "  parallelism: 4", "  parallelism: 3", "parallelism 3 != completions 4"},
		{"OMNIK_SEGMENTS != completions", "job.yaml", `value: "4" # must equal completions`, `value: "3"`, "OMNIK_SEGMENTS is 3, want completions 4"},
		{"not Indexed", "job.yaml", "completionMode: Indexed", "completionMode: NonIndexed", "no runner Job"},
		{"retries a segment", "job.yaml", "backoffLimitPerIndex: 0", "backoffLimitPerIndex: 1", "backoffLimitPerIndex is 1"},
		{"a fixed segment", "job.yaml", "- auto #", "- 0:1 #", "--execution-segment auto"},
		{"one file for all pods", "job.yaml", "piece-$(JOB_COMPLETION_INDEX).ndjson.gz", "piece.ndjson.gz", "$(JOB_COMPLETION_INDEX)"},
		{"run id from the pod name", "job.yaml", runIDField, "metadata.name", "OMNIK_RUN_ID"},
		{"inline credential", "job.yaml", "valueFrom:\n                secretKeyRef:\n                  name: omni-api\n                  key: api-key", `value: "sk-abcdefgh12345678"`, "OMNI_API_KEY"},
		{"merge reads another claim", "merge-job.yaml", "claimName: omnik-results", "claimName: scratch", "merge reads"},
		{"merge reads another directory", "merge-job.yaml", "subPath: pieces", "subPath: results", "merge reads"},
		{"script drifted from examples/scripts", "configmap.yaml", "max_tokens: 32", "max_tokens: 64", "differs from ../scripts/cluster-gate.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(string(good[tc.file]), tc.old) {
				t.Fatalf("%s has no %q to break: update the test", tc.file, tc.old)
			}
			files := map[string][]byte{}
			for k, v := range good {
				files[k] = v
			}
			files[tc.file] = []byte(strings.Replace(string(good[tc.file]), tc.old, tc.new, 1))
			err := check(files)
			if err == nil {
				t.Fatal("check passed a broken manifest")
			}
			t.Log(err) // what a user would read, with -v
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not mention %q:\n%v", tc.want, err)
			}
		})
	}
}

// check decodes the files and returns every broken invariant, joined.
func check(files map[string][]byte) error {
	objs, err := decodeAll(files)
	if err != nil {
		return err
	}
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	for name, b := range files {
		if m := literalCredential.Find(b); m != nil {
			fail("%s: a literal credential %q: take it from a Secret (secretKeyRef)", name, m)
		}
	}
	claims := map[string]corev1.PersistentVolumeClaim{}
	for _, o := range objs {
		switch v := o.value.(type) {
		case *corev1.Secret:
			if len(v.Data) > 0 || len(v.StringData) > 0 {
				fail("%s: Secret %s carries its data: create it with kubectl create secret, never commit it", o.where, v.Name)
			}
		case *corev1.PersistentVolumeClaim:
			claims[v.Name] = *v
		case *corev1.ConfigMap:
			for key, data := range v.Data {
				orig, err := os.ReadFile(filepath.Join("..", "scripts", key))
				if err != nil {
					fail("%s: ConfigMap %s key %s copies no script under examples/scripts: %v", o.where, v.Name, key, err)
				} else if data != string(orig) {
					fail("%s: ConfigMap %s key %s differs from ../scripts/%s: copy it again", o.where, v.Name, key, key)
				}
			}
		case *batchv1.Job:
			for _, c := range v.Spec.Template.Spec.Containers {
				for _, e := range c.Env {
					if credentialName.MatchString(e.Name) && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
						fail("%s: env %s of container %s must come from a Secret (valueFrom.secretKeyRef)", o.where, e.Name, c.Name)
					}
				}
			}
		}
	}
	byCmd := jobs(objs)
	var runner *batchv1.Job
	for _, j := range byCmd["run"] {
		if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
			runner = j
		}
	}
	if runner == nil || len(byCmd["run"]) != 1 {
		fail("no runner Job: want exactly one Job running `omnik run`, with completionMode Indexed")
		return errors.Join(errs...)
	}
	pieces, err := checkRunner(runner, claims)
	errs = append(errs, err)
	if len(byCmd["merge"]) != 1 {
		fail("want exactly one Job running `omnik merge`, got %d", len(byCmd["merge"]))
	} else if pieces.claim != "" { // else the runner's error says where it writes nothing
		errs = append(errs, checkMerge(byCmd["merge"][0], runner, pieces, claims))
	}
	return errors.Join(errs...)
}

// piecesDir is where on which claim the runner writes its pieces.
type piecesDir struct{ claim, dir string }

// checkRunner checks the Indexed Job and returns where its pieces land.
func checkRunner(j *batchv1.Job, claims map[string]corev1.PersistentVolumeClaim) (piecesDir, error) {
	var errs []error
	fail := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Job %s: "+format, append([]any{j.Name}, a...)...))
	}
	s := j.Spec
	completions, parallelism := deref(s.Completions, 1), deref(s.Parallelism, 1)
	if parallelism != completions {
		fail("parallelism %d != completions %d: every piece must run at once, on one clock", parallelism, completions)
	}
	// A retried pod would run its segment twice; no retries, per index or at all.
	if s.BackoffLimitPerIndex != nil {
		if *s.BackoffLimitPerIndex != 0 {
			fail("backoffLimitPerIndex is %d, want 0: a retry runs its segment again", *s.BackoffLimitPerIndex)
		}
	} else if deref(s.BackoffLimit, 6) != 0 {
		fail("want backoffLimitPerIndex: 0 (or backoffLimit: 0): a retry runs its segment again")
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		fail("restartPolicy %q, want Never: a restarted container reruns its segment", s.Template.Spec.RestartPolicy)
	}
	if len(s.Template.Spec.Containers) != 1 {
		fail("want one container, got %d", len(s.Template.Spec.Containers))
		return piecesDir{}, errors.Join(errs...)
	}
	c := s.Template.Spec.Containers[0]
	if n := env(c, "OMNIK_SEGMENTS"); n == nil {
		fail("no OMNIK_SEGMENTS")
	} else if v, err := strconv.Atoi(n.Value); err != nil || int32(v) != completions {
		fail("OMNIK_SEGMENTS is %s, want completions %d", n.Value, completions)
	}
	if id := env(c, "OMNIK_RUN_ID"); id == nil || id.ValueFrom == nil || id.ValueFrom.FieldRef == nil || id.ValueFrom.FieldRef.FieldPath != runIDField {
		fail("OMNIK_RUN_ID must come from the fieldRef %s, the same on every pod of the run", runIDField)
	}
	if at := env(c, "OMNIK_START_AT"); at == nil || at.Value != startAtPlaceholder {
		fail("OMNIK_START_AT must be %q, the placeholder the docs substitute", startAtPlaceholder)
	}
	if key := env(c, "OMNI_API_KEY"); key == nil || key.ValueFrom == nil || key.ValueFrom.SecretKeyRef == nil {
		fail("OMNI_API_KEY must come from a Secret (valueFrom.secretKeyRef)")
	}
	args := c.Args
	if !hasFlag(args, "--execution-segment", "auto") {
		fail("args %q lack --execution-segment auto", args)
	}
	out := flagValue(args, "--out")
	path, isJSON := strings.CutPrefix(out, "json=")
	if !isJSON || !strings.Contains(path, "$(JOB_COMPLETION_INDEX)") {
		fail("--out %q: want json=…$(JOB_COMPLETION_INDEX)…, one file per pod", out)
		return piecesDir{}, errors.Join(errs...)
	}
	claim, rel, ro, ok := claimPath(s.Template.Spec, c, path)
	if !ok || ro {
		fail("--out %s is not on a writable PersistentVolumeClaim mount", path)
		return piecesDir{}, errors.Join(errs...)
	}
	if pvc, ok := claims[claim]; !ok {
		fail("claim %s is not among the manifests", claim)
	} else if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		fail("claim %s is not ReadWriteMany: the pods of several nodes write to it", claim)
	}
	return piecesDir{claim, filepath.Dir(rel)}, errors.Join(errs...)
}

// checkMerge checks that the merge Job reads the runner's pieces from the same claim.
func checkMerge(j, runner *batchv1.Job, pieces piecesDir, claims map[string]corev1.PersistentVolumeClaim) error {
	var errs []error
	fail := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("Job %s: "+format, append([]any{j.Name}, a...)...))
	}
	if len(j.Spec.Template.Spec.Containers) != 1 {
		fail("want one container")
		return errors.Join(errs...)
	}
	c := j.Spec.Template.Spec.Containers[0]
	if c.Image != runner.Spec.Template.Spec.Containers[0].Image {
		fail("image %s, the runner's is %s: merge with the omnik that wrote the pieces", c.Image, runner.Spec.Template.Spec.Containers[0].Image)
	}
	dir := c.Args[len(c.Args)-1]
	claim, rel, _, ok := claimPath(j.Spec.Template.Spec, c, dir)
	if !ok || claim != pieces.claim || rel != pieces.dir {
		fail("merge reads %s (claim %q, %q), the runner writes to claim %q, %q", dir, claim, rel, pieces.claim, pieces.dir)
	}
	if export := flagValue(c.Args, "--summary-export"); export != "" {
		if claim, _, ro, ok := claimPath(j.Spec.Template.Spec, c, export); !ok || ro || claims[claim].Name == "" {
			fail("--summary-export %s is not on a writable claim mount", export)
		}
	}
	return errors.Join(errs...)
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// flagValue returns the value of flag in args, written "--flag v" or "--flag=v".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func hasFlag(args []string, flag, value string) bool { return flagValue(args, flag) == value }

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}
