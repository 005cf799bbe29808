package webui

import (
	"net/http"
	"strconv"
)

func (v *view) approvals() {
	if v.h.d.Approvals == nil {
		v.page("approvals", "Approvals", "approvals", map[string]any{"Off": true})
		return
	}
	ctx := v.r.Context()
	d := map[string]any{}
	if v.post() {
		if v.readOnly() {
			v.fail(http.StatusForbidden, "answering an approval writes the database, which "+v.whyReadOnly()+" forbids")
			return
		}
		id := v.id("id")
		approve := v.q("answer") == "approve"
		if v.q("answer") != "approve" && v.q("answer") != "deny" {
			v.fail(http.StatusBadRequest, "the answer must be approve or deny")
			return
		}
		if err := v.h.d.Approvals.Answer(ctx, id, approve); err != nil {
			d["Err"] = errText(err)
		} else {
			verb := "denied"
			if approve {
				verb = "approved"
			}
			d["Done"] = "#" + strconv.FormatInt(id, 10) + " " + verb
		}
	}
	list, err := v.h.d.Approvals.Pending(ctx)
	if err != nil {
		d["Err"] = errText(err)
	}
	d["Pending"] = list
	v.page("approvals", "Approvals", "approvals", d)
}
