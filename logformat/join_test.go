package logformat

import (
	"github.com/agentstat/agentstat/join"
	"github.com/agentstat/agentstat/model"
)

// joinAll is JoinEach with every run held: the runs, and for each fragment
// the runs it fed or joined (none for an orphan; one, but for a file's spans
// of a trace with several agents).
func joinAll(frags []*join.Fragment, w Warner) (runs []*model.Run, owners map[*join.Fragment][]*model.Run) {
	owners = map[*join.Fragment][]*model.Run{}
	join.JoinEach(frags, w, func(r *model.Run, from []*join.Fragment) {
		runs = append(runs, r)
		for _, f := range from {
			owners[f] = append(owners[f], r)
		}
	}, nil)
	return runs, owners
}
