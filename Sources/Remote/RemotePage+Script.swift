extension RemotePage {
    /// The page's script: the login, then every panel from the API. Commands carry the token in
    /// the Authorization header (kept in this tab's sessionStorage); the preview, downloads and
    /// events use the cookie the server set at the login (HttpOnly: this script never sees it).
    /// Everything shown is built as DOM nodes with textContent, never as HTML text.
    static let scriptJS = #"""
    'use strict';
    const TOKEN_KEY = 'tripod_token';
    const token = () => sessionStorage.getItem(TOKEN_KEY) || '';
    const $ = (id) => document.getElementById(id);

    async function api(path) {
      const response = await fetch(path, { headers: { Authorization: 'Bearer ' + token() } });
      if (response.status === 401) { logout(); throw new Error('wrong token'); }
      if (!response.ok) throw new Error(path + ': ' + response.status + ' ' + (await response.text()));
      return response.json();
    }

    async function command(line) {
      const response = await fetch('/api/command', {
        method: 'POST', body: line,
        headers: { Authorization: 'Bearer ' + token(), 'Content-Type': 'text/plain' } });
      if (response.status === 401) { logout(); throw new Error('wrong token'); }
      const reply = response.ok ? await response.json() : { ok: false, message: await response.text() };
      $('reply').textContent = line + ': ' + (reply.ok ? 'ok ' + fields(reply.values) : 'err ' + (reply.code || '') + ' ' + reply.message);
      return reply;
    }

    const fields = (values) => Object.entries(values || {}).map(([k, v]) => k + '=' + v).join(' ');

    // The server removes its cookie (HttpOnly, so only the server can).
    async function logout() {
      sessionStorage.removeItem(TOKEN_KEY);
      try { await fetch('/logout', { method: 'POST' }); } finally { location.href = '/login'; }
    }

    // The login page: the server checks the token and answers with its cookie; the tab keeps the
    // token for the Authorization header, then goes to the page.
    function startLogin() {
      $('login').addEventListener('submit', async (event) => {
        event.preventDefault();
        const given = $('token').value.trim();
        const response = await fetch('/login', { method: 'POST', headers: { Authorization: 'Bearer ' + given } });
        if (!response.ok) { $('login-error').textContent = 'Refused: ' + response.status + ' ' + (await response.text()); return; }
        sessionStorage.setItem(TOKEN_KEY, given);
        location.href = '/';
      });
    }

    // Status: every field of the console's `status`.
    async function refreshStatus() {
      try {
        const reply = await api('/api/status');
        const list = $('status');
        list.replaceChildren();
        for (const [key, value] of Object.entries(reply.values || {})) {
          const dt = document.createElement('dt'); dt.textContent = key;
          const dd = document.createElement('dd'); dd.textContent = value; dd.dataset.key = key;
          list.append(dt, dd);
        }
        $('connection').textContent = 'connected';
      } catch (error) { $('connection').textContent = 'offline: ' + error.message; }
    }

    // Settings: one control per entry of the table, built from /api/settings.
    async function refreshSettings() {
      const table = await api('/api/settings');
      const form = $('settings');
      const shown = (setting) => setting.type === 'number' ? parseFloat(setting.value) : setting.value;
      // Built once; later refreshes only update the values (never the control being edited).
      if (form.children.length === table.settings.length) {
        for (const setting of table.settings) {
          const control = document.getElementById('setting-' + setting.key);
          if (control && control !== document.activeElement) control.value = shown(setting);
        }
        return;
      }
      form.replaceChildren();
      for (const setting of table.settings) {
        const label = document.createElement('label');
        label.title = setting.summary + ' (' + setting.forms + ')';
        const name = document.createElement('span'); name.textContent = setting.key;
        let control;
        if (setting.type === 'choice') {
          control = document.createElement('select');
          for (const choice of setting.choices) {
            const option = document.createElement('option'); option.value = option.textContent = choice;
            control.append(option);
          }
        } else {
          control = document.createElement('input');
          if (setting.type === 'number') {
            control.type = 'number'; control.step = 'any';
            if (setting.minimum !== undefined) control.min = setting.minimum;
            if (setting.maximum !== undefined) control.max = setting.maximum;
          }
        }
        control.id = 'setting-' + setting.key;
        control.dataset.key = setting.key;
        control.value = shown(setting);
        // remote.*: shown, changed only at the rig's console or in its config file.
        if (setting.readOnly) {
          control.disabled = true;
          label.title = setting.summary + ' (read-only here: ' + setting.readOnly + ')';
        }
        control.addEventListener('change', async () => {
          if (control.value === '') return;
          await command('set ' + setting.key + ' ' + control.value);
          refreshSettings(); refreshStatus();
        });
        label.append(name, control);
        if (setting.unit) { const unit = document.createElement('span'); unit.className = 'unit'; unit.textContent = setting.unit; label.append(unit); }
        form.append(label);
      }
    }

    async function refreshCaptures() {
      const list = await api('/api/captures');
      const items = $('captures');
      items.replaceChildren();
      for (const capture of list.captures) {
        const li = document.createElement('li');
        const url = '/captures/' + capture.path.split('/').map(encodeURIComponent).join('/');
        if (/\.jpe?g$/i.test(capture.path)) {
          const thumb = document.createElement('img'); thumb.loading = 'lazy'; thumb.src = url; thumb.alt = '';
          li.append(thumb);
        }
        const link = document.createElement('a'); link.href = url; link.download = capture.path.split('/').pop();
        link.textContent = capture.path; link.dataset.path = capture.path;
        const size = document.createElement('span'); size.textContent = (capture.bytes / 1e6).toFixed(2) + ' MB';
        li.append(link, size);
        items.append(li);
      }
    }

    async function refreshFormats() {
      const reply = await api('/api/formats');
      $('formats').textContent = (reply.lines || []).join('\n') || reply.message || '';
    }

    async function refreshPresets() {
      const presets = await command('preset list');
      const box = $('presets');
      box.replaceChildren();
      for (const line of presets.lines || []) {
        const name = line.split(':')[0].trim();
        if (!name) continue;
        const button = document.createElement('button'); button.type = 'button';
        button.textContent = 'Bracket ' + name;
        button.addEventListener('click', () => command('bracket preset ' + name));
        box.append(button);
      }
    }

    function startEvents() {
      const source = new EventSource('/api/events');
      source.onmessage = (message) => {
        const event = JSON.parse(message.data);
        const li = document.createElement('li');
        li.textContent = new Date().toLocaleTimeString() + ' ' + event.event + ' ' + fields(event.values);
        $('events').prepend(li);
        while ($('events').children.length > 200) $('events').lastChild.remove();
        if (/^(bracket\.done|record\.stopped|capture)/.test(event.event)) refreshCaptures();
        refreshStatus();
      };
      source.onerror = () => { $('connection').textContent = 'events reconnecting…'; };
    }

    // Zebra, peaking and the histogram, drawn from the preview image in this browser.
    function startOverlays() {
      const image = $('preview'), overlay = $('overlay'), chart = $('histogram-chart');
      const scratch = document.createElement('canvas');
      const context = scratch.getContext('2d', { willReadFrequently: true });
      function draw() {
        const zebra = $('zebra').checked, peaking = $('peaking').checked, histogram = $('histogram').checked;
        chart.hidden = !histogram;
        const w = 320, h = Math.round(320 * (image.naturalHeight || 180) / (image.naturalWidth || 320));
        const out = overlay.getContext('2d');
        if ((zebra || peaking || histogram) && image.complete && image.naturalWidth > 0) {
          scratch.width = w; scratch.height = h;
          context.drawImage(image, 0, 0, w, h);
          const pixels = context.getImageData(0, 0, w, h).data;
          const marks = out.createImageData(w, h);
          const bins = new Array(64).fill(0);
          const luma = new Float32Array(w * h);
          for (let i = 0; i < w * h; i++) {
            const y = 0.2126 * pixels[4 * i] + 0.7152 * pixels[4 * i + 1] + 0.0722 * pixels[4 * i + 2];
            luma[i] = y; bins[Math.min(63, y >> 2)]++;
          }
          for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) {
            const i = y * w + x;
            if (zebra && luma[i] > 248 && ((x + y) >> 2) % 2 === 0) { marks.data.set([255, 0, 255, 200], 4 * i); continue; }
            if (peaking) {
              const g = Math.abs(luma[i + 1] - luma[i - 1]) + Math.abs(luma[i + w] - luma[i - w]);
              if (g > 90) marks.data.set([0, 255, 0, 230], 4 * i);
            }
          }
          overlay.width = w; overlay.height = h;
          out.putImageData(marks, 0, 0);
          if (histogram) {
            const c = chart.getContext('2d'), top = Math.max(...bins);
            c.fillStyle = '#000'; c.fillRect(0, 0, chart.width, chart.height); c.fillStyle = '#ddd';
            bins.forEach((n, i) => { const bar = chart.height * n / top; c.fillRect(i * 4, chart.height - bar, 3, bar); });
          }
        } else { out.clearRect(0, 0, overlay.width, overlay.height); }
        setTimeout(() => requestAnimationFrame(draw), 100);
      }
      draw();
    }

    function startPage() {
      if (!token()) { location.href = '/login'; return; }
      $('preview').src = '/stream.mjpg';
      $('logout').addEventListener('click', logout);
      $('capture').addEventListener('click', () => command('capture'));
      $('af').addEventListener('click', () => command('af'));
      $('record-start').addEventListener('click', () => command('record start'));
      $('record-stop').addEventListener('click', () => command('record stop'));
      startOverlays();
      startEvents();
      refreshStatus(); refreshSettings(); refreshCaptures(); refreshFormats(); refreshPresets();
      setInterval(refreshStatus, 2000);
      setInterval(refreshCaptures, 10000);
    }

    if (document.body.classList.contains('login')) startLogin(); else startPage();
    """#
}
