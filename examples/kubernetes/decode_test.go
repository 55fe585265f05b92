package kubernetes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// kinds are the API types a manifest here may be, by "apiVersion kind". A kind missing
// from this table fails the test rather than going unchecked.
var kinds = map[string]func() any{
	"batch/v1 Job":             func() any { return new(batchv1.Job) },
	"v1 ConfigMap":             func() any { return new(corev1.ConfigMap) },
	"v1 PersistentVolumeClaim": func() any { return new(corev1.PersistentVolumeClaim) },
	"v1 Secret":                func() any { return new(corev1.Secret) },
}

// object is one decoded document: a pointer to one of the kinds' types.
type object struct {
	where string // file#n, for messages
	value any
}

// readManifests returns every *.yaml file of dir by base name.
func readManifests(dir string) (map[string][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no *.yaml in %s", dir)
	}
	files := make(map[string][]byte, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(p)] = b
	}
	return files, nil
}

// docSeparator is a "---" line; inside a block scalar such a line is indented, so it
// does not match.
var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// commentOrBlank matches a document with nothing in it but comments and blank lines.
var commentOrBlank = regexp.MustCompile(`^(?:[ \t]*(?:#.*)?\n?)*$`)

// decodeAll decodes every document of every file, in file-name order.
func decodeAll(files map[string][]byte) ([]object, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var objs []object
	var errs []error
	for _, name := range names {
		for i, doc := range docSeparator.Split(string(files[name]), -1) {
			if commentOrBlank.MatchString(doc) {
				continue
			}
			where := fmt.Sprintf("%s#%d", name, i)
			v, err := decodeStrict([]byte(doc))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			objs = append(objs, object{where, v})
		}
	}
	return objs, errors.Join(errs...)
}

// decodeStrict decodes one YAML document into its API type, as strictly as the API
// server's field validation: duplicate keys, unknown fields and keys that match a field
// only in another case are errors. encoding/json alone would take `completionmode` for
// completionMode; the server would drop it, and the Job would silently not be Indexed.
func decodeStrict(doc []byte) (any, error) {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(j, &head); err != nil {
		return nil, err
	}
	newValue, ok := kinds[head.APIVersion+" "+head.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown kind %q of apiVersion %q: add its API type to kinds", head.Kind, head.APIVersion)
	}
	v := newValue()
	strict, err := kjson.UnmarshalStrict(j, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", head.Kind, err)
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("%s: %w", head.Kind, errors.Join(strict...))
	}
	return v, nil
}

// jobs returns the decoded Jobs by the subcommand their first container runs.
func jobs(objs []object) map[string][]*batchv1.Job {
	out := map[string][]*batchv1.Job{}
	for _, o := range objs {
		j, ok := o.value.(*batchv1.Job)
		if !ok {
			continue
		}
		sub := ""
		if cs := j.Spec.Template.Spec.Containers; len(cs) > 0 && len(cs[0].Args) > 0 {
			sub = cs[0].Args[0]
		}
		out[sub] = append(out[sub], j)
	}
	return out
}

// claimPath resolves a path inside container c of pod spec to the claim it lands on
// and the path inside that claim, through the longest mount that holds it.
func claimPath(spec corev1.PodSpec, c corev1.Container, path string) (claim, rel string, readOnly bool, ok bool) {
	var best *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		mp := strings.TrimSuffix(m.MountPath, "/")
		if (path == mp || strings.HasPrefix(path, mp+"/")) && (best == nil || len(mp) > len(best.MountPath)) {
			best = &c.VolumeMounts[i]
		}
	}
	if best == nil {
		return "", "", false, false
	}
	for _, v := range spec.Volumes {
		if v.Name == best.Name && v.PersistentVolumeClaim != nil {
			rest := strings.TrimPrefix(path, strings.TrimSuffix(best.MountPath, "/"))
			return v.PersistentVolumeClaim.ClaimName, filepath.Join("/", best.SubPath, rest), best.ReadOnly, true
		}
	}
	return "", "", false, false
}
