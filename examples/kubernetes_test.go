// Package examples checks the ready-made files of examples/ that no other
// tool lints: the Kubernetes Jobs, decoded strictly into Kubernetes' own API
// types (an unknown or misspelt field fails, as kubectl's validation does).
package examples

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

func readJob(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(b, &job); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name == "" {
		t.Fatalf("%s: %s %s %q, want a named batch/v1 Job", name, job.APIVersion, job.Kind, job.Name)
	}
	if p := job.Spec.Template.Spec.RestartPolicy; p != "Never" && p != "OnFailure" {
		t.Errorf("%s: restartPolicy %q: a Job's pods need Never or OnFailure", name, p)
	}
	return &job
}

func script(job *batchv1.Job) string {
	c := job.Spec.Template.Spec.Containers[0]
	return strings.Join(append(c.Command, c.Args...), " ")
}

func TestKubernetesJobs(t *testing.T) {
	mapJob, reduce := readJob(t, "agentstat-map.yaml"), readJob(t, "agentstat-reduce.yaml")

	// The map Job: one pod per shard, each index its own --shard.
	s := mapJob.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Error("map: completionMode is not Indexed: pods get no JOB_COMPLETION_INDEX")
	}
	shards := ""
	for _, e := range s.Template.Spec.Containers[0].Env {
		if e.Name == "SHARDS" {
			shards = e.Value
		}
	}
	if s.Completions == nil || s.Parallelism == nil || shards == "" ||
		strconv.Itoa(int(*s.Completions)) != shards || strconv.Itoa(int(*s.Parallelism)) != shards {
		t.Errorf("map: completions, parallelism and SHARDS (%q) differ: shards would be missed or read twice", shards)
	}
	m := script(mapJob)
	for _, want := range []string{"JOB_COMPLETION_INDEX + 1", `--shard "$i/$SHARDS"`, `--partial "/work/partials/shard-$i.agentstat"`} {
		if !strings.Contains(m, want) {
			t.Errorf("map: command lacks %s", want)
		}
	}

	// The reduce Job merges what the map wrote, from the same volume.
	r := script(reduce)
	if !regexp.MustCompile(`agentstat merge /work/partials/shard-\*\.agentstat`).MatchString(r) {
		t.Errorf("reduce: does not merge the map's partials: %s", r)
	}
	claim := func(job *batchv1.Job, volume string) string {
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.Name == volume && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	if a, b := claim(mapJob, "work"), claim(reduce, "work"); a == "" || a != b {
		t.Errorf("map writes partials to claim %q, reduce reads claim %q", a, b)
	}
}
