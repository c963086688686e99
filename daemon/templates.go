package daemon

import (
	"context"
	"net/http"

	"github.com/tend-agent/tend/api"
	"github.com/tend-agent/tend/watchers"
)

// attach makes an active instance of a template for a folder, linked to
// the template by templateId.
func (d *Daemon) attach(ctx context.Context, req api.AttachRequest) (*watchers.Definition, error) {
	d.mu.Lock()
	tpl, err := d.find(req.Template)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !tpl.IsTemplate() {
		return nil, userErrorf("%s is not a template (it watches %s); a template has no path", tpl.Name, tpl.Path)
	}
	inst := *tpl
	inst.TemplateID = tpl.ID
	inst.Path = req.Path
	inst.Enabled = true
	inst.Name = req.Name
	if inst.Name == "" {
		inst.Name = d.freeName(tpl.Name)
	}
	return d.add(ctx, inst)
}

func (d *Daemon) freeName(base string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 1; ; i++ {
		n := base + "-" + itoa(i)
		if len(n) > 63 {
			n = n[len(n)-63:]
		}
		if !d.nameTaken(n, "") {
			return n
		}
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// detach turns an instance back into a paused, unattached copy with its
// fire count reset.
func (d *Daemon) detach(ctx context.Context, ref string) (*watchers.Definition, error) {
	d.mu.Lock()
	def, err := d.find(ref)
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if def.TemplateID == "" {
		return nil, userErrorf("%s is not attached to a template", def.Name)
	}
	out, err := d.edit(ctx, ref, map[string]any{"templateId": "", "enabled": false})
	if err != nil {
		return nil, err
	}
	// The edit restarted the engine, disabled; its state starts afresh.
	if _, eng, err := d.engine(ref); err == nil {
		if err := eng.ResetFires(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *Daemon) hAttach(w http.ResponseWriter, r *http.Request) {
	var req api.AttachRequest
	if err := decode(r, &req); err != nil {
		d.fail(w, err)
		return
	}
	def, err := d.attach(d.runCtx, req)
	d.answerView(w, def, err)
}

func (d *Daemon) hDetach(w http.ResponseWriter, r *http.Request) {
	def, err := d.detach(d.runCtx, r.PathValue("ref"))
	d.answerView(w, def, err)
}
