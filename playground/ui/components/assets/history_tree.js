// built from src/history_tree.js sha256:a1c3e6cae6b361f556f15ad21ed4a34bbf1a56985afe1aa5b2d85b424af5a3b1
// node_modules/d3-selection/dist/d3-selection.mjs
var e = "http://www.w3.org/1999/xhtml", t = {
	svg: "http://www.w3.org/2000/svg",
	xhtml: e,
	xlink: "http://www.w3.org/1999/xlink",
	xml: "http://www.w3.org/XML/1998/namespace",
	xmlns: "http://www.w3.org/2000/xmlns/"
};
function n(e) {
	var n = e += "", r = n.indexOf(":");
	return r >= 0 && (n = e.slice(0, r)) !== "xmlns" && (e = e.slice(r + 1)), t.hasOwnProperty(n) ? {
		space: t[n],
		local: e
	} : e;
}
function r(t) {
	return function() {
		var n = this.ownerDocument, r = this.namespaceURI;
		return r === e && n.documentElement.namespaceURI === e ? n.createElement(t) : n.createElementNS(r, t);
	};
}
function i(e) {
	return function() {
		return this.ownerDocument.createElementNS(e.space, e.local);
	};
}
function a(e) {
	var t = n(e);
	return (t.local ? i : r)(t);
}
function o() {}
function s(e) {
	return e == null ? o : function() {
		return this.querySelector(e);
	};
}
function c(e) {
	typeof e != "function" && (e = s(e));
	for (var t = this._groups, n = t.length, r = Array(n), i = 0; i < n; ++i) for (var a = t[i], o = a.length, c = r[i] = Array(o), l, u, d = 0; d < o; ++d) (l = a[d]) && (u = e.call(l, l.__data__, d, a)) && ("__data__" in l && (u.__data__ = l.__data__), c[d] = u);
	return new U(r, this._parents);
}
function l(e) {
	return e == null ? [] : Array.isArray(e) ? e : Array.from(e);
}
function u() {
	return [];
}
function d(e) {
	return e == null ? u : function() {
		return this.querySelectorAll(e);
	};
}
function f(e) {
	return function() {
		return l(e.apply(this, arguments));
	};
}
function p(e) {
	e = typeof e == "function" ? f(e) : d(e);
	for (var t = this._groups, n = t.length, r = [], i = [], a = 0; a < n; ++a) for (var o = t[a], s = o.length, c, l = 0; l < s; ++l) (c = o[l]) && (r.push(e.call(c, c.__data__, l, o)), i.push(c));
	return new U(r, i);
}
function m(e) {
	return function() {
		return this.matches(e);
	};
}
function h(e) {
	return function(t) {
		return t.matches(e);
	};
}
var g = Array.prototype.find;
function _(e) {
	return function() {
		return g.call(this.children, e);
	};
}
function v() {
	return this.firstElementChild;
}
function y(e) {
	return this.select(e == null ? v : _(typeof e == "function" ? e : h(e)));
}
var b = Array.prototype.filter;
function ee() {
	return Array.from(this.children);
}
function te(e) {
	return function() {
		return b.call(this.children, e);
	};
}
function ne(e) {
	return this.selectAll(e == null ? ee : te(typeof e == "function" ? e : h(e)));
}
function re(e) {
	typeof e != "function" && (e = m(e));
	for (var t = this._groups, n = t.length, r = Array(n), i = 0; i < n; ++i) for (var a = t[i], o = a.length, s = r[i] = [], c, l = 0; l < o; ++l) (c = a[l]) && e.call(c, c.__data__, l, a) && s.push(c);
	return new U(r, this._parents);
}
function x(e) {
	return Array(e.length);
}
function ie() {
	return new U(this._enter || this._groups.map(x), this._parents);
}
function S(e, t) {
	this.ownerDocument = e.ownerDocument, this.namespaceURI = e.namespaceURI, this._next = null, this._parent = e, this.__data__ = t;
}
S.prototype = {
	constructor: S,
	appendChild: function(e) {
		return this._parent.insertBefore(e, this._next);
	},
	insertBefore: function(e, t) {
		return this._parent.insertBefore(e, t);
	},
	querySelector: function(e) {
		return this._parent.querySelector(e);
	},
	querySelectorAll: function(e) {
		return this._parent.querySelectorAll(e);
	}
};
function ae(e) {
	return function() {
		return e;
	};
}
function oe(e, t, n, r, i, a) {
	for (var o = 0, s, c = t.length, l = a.length; o < l; ++o) (s = t[o]) ? (s.__data__ = a[o], r[o] = s) : n[o] = new S(e, a[o]);
	for (; o < c; ++o) (s = t[o]) && (i[o] = s);
}
function se(e, t, n, r, i, a, o) {
	var s, c, l = /* @__PURE__ */ new Map(), u = t.length, d = a.length, f = Array(u), p;
	for (s = 0; s < u; ++s) (c = t[s]) && (f[s] = p = o.call(c, c.__data__, s, t) + "", l.has(p) ? i[s] = c : l.set(p, c));
	for (s = 0; s < d; ++s) p = o.call(e, a[s], s, a) + "", (c = l.get(p)) ? (r[s] = c, c.__data__ = a[s], l.delete(p)) : n[s] = new S(e, a[s]);
	for (s = 0; s < u; ++s) (c = t[s]) && l.get(f[s]) === c && (i[s] = c);
}
function ce(e) {
	return e.__data__;
}
function le(e, t) {
	if (!arguments.length) return Array.from(this, ce);
	var n = t ? se : oe, r = this._parents, i = this._groups;
	typeof e != "function" && (e = ae(e));
	for (var a = i.length, o = Array(a), s = Array(a), c = Array(a), l = 0; l < a; ++l) {
		var u = r[l], d = i[l], f = d.length, p = ue(e.call(u, u && u.__data__, l, r)), m = p.length, h = s[l] = Array(m), g = o[l] = Array(m);
		n(u, d, h, g, c[l] = Array(f), p, t);
		for (var _ = 0, v = 0, y, b; _ < m; ++_) if (y = h[_]) {
			for (_ >= v && (v = _ + 1); !(b = g[v]) && ++v < m;);
			y._next = b || null;
		}
	}
	return o = new U(o, r), o._enter = s, o._exit = c, o;
}
function ue(e) {
	return typeof e == "object" && "length" in e ? e : Array.from(e);
}
function C() {
	return new U(this._exit || this._groups.map(x), this._parents);
}
function de(e, t, n) {
	var r = this.enter(), i = this, a = this.exit();
	return typeof e == "function" ? (r = e(r), r &&= r.selection()) : r = r.append(e + ""), t != null && (i = t(i), i &&= i.selection()), n == null ? a.remove() : n(a), r && i ? r.merge(i).order() : i;
}
function fe(e) {
	for (var t = e.selection ? e.selection() : e, n = this._groups, r = t._groups, i = n.length, a = r.length, o = Math.min(i, a), s = Array(i), c = 0; c < o; ++c) for (var l = n[c], u = r[c], d = l.length, f = s[c] = Array(d), p, m = 0; m < d; ++m) (p = l[m] || u[m]) && (f[m] = p);
	for (; c < i; ++c) s[c] = n[c];
	return new U(s, this._parents);
}
function pe() {
	for (var e = this._groups, t = -1, n = e.length; ++t < n;) for (var r = e[t], i = r.length - 1, a = r[i], o; --i >= 0;) (o = r[i]) && (a && o.compareDocumentPosition(a) ^ 4 && a.parentNode.insertBefore(o, a), a = o);
	return this;
}
function me(e) {
	e ||= he;
	function t(t, n) {
		return t && n ? e(t.__data__, n.__data__) : !t - !n;
	}
	for (var n = this._groups, r = n.length, i = Array(r), a = 0; a < r; ++a) {
		for (var o = n[a], s = o.length, c = i[a] = Array(s), l, u = 0; u < s; ++u) (l = o[u]) && (c[u] = l);
		c.sort(t);
	}
	return new U(i, this._parents).order();
}
function he(e, t) {
	return e < t ? -1 : e > t ? 1 : e >= t ? 0 : NaN;
}
function ge() {
	var e = arguments[0];
	return arguments[0] = this, e.apply(null, arguments), this;
}
function _e() {
	return Array.from(this);
}
function ve() {
	for (var e = this._groups, t = 0, n = e.length; t < n; ++t) for (var r = e[t], i = 0, a = r.length; i < a; ++i) {
		var o = r[i];
		if (o) return o;
	}
	return null;
}
function ye() {
	let e = 0;
	for (let t of this) ++e;
	return e;
}
function w() {
	return !this.node();
}
function T(e) {
	for (var t = this._groups, n = 0, r = t.length; n < r; ++n) for (var i = t[n], a = 0, o = i.length, s; a < o; ++a) (s = i[a]) && e.call(s, s.__data__, a, i);
	return this;
}
function E(e) {
	return function() {
		this.removeAttribute(e);
	};
}
function D(e) {
	return function() {
		this.removeAttributeNS(e.space, e.local);
	};
}
function O(e, t) {
	return function() {
		this.setAttribute(e, t);
	};
}
function k(e, t) {
	return function() {
		this.setAttributeNS(e.space, e.local, t);
	};
}
function A(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? this.removeAttribute(e) : this.setAttribute(e, n);
	};
}
function j(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? this.removeAttributeNS(e.space, e.local) : this.setAttributeNS(e.space, e.local, n);
	};
}
function M(e, t) {
	var r = n(e);
	if (arguments.length < 2) {
		var i = this.node();
		return r.local ? i.getAttributeNS(r.space, r.local) : i.getAttribute(r);
	}
	return this.each((t == null ? r.local ? D : E : typeof t == "function" ? r.local ? j : A : r.local ? k : O)(r, t));
}
function N(e) {
	return e.ownerDocument && e.ownerDocument.defaultView || e.document && e || e.defaultView;
}
function P(e) {
	return function() {
		this.style.removeProperty(e);
	};
}
function be(e, t, n) {
	return function() {
		this.style.setProperty(e, t, n);
	};
}
function xe(e, t, n) {
	return function() {
		var r = t.apply(this, arguments);
		r == null ? this.style.removeProperty(e) : this.style.setProperty(e, r, n);
	};
}
function Se(e, t, n) {
	return arguments.length > 1 ? this.each((t == null ? P : typeof t == "function" ? xe : be)(e, t, n ?? "")) : Ce(this.node(), e);
}
function Ce(e, t) {
	return e.style.getPropertyValue(t) || N(e).getComputedStyle(e, null).getPropertyValue(t);
}
function we(e) {
	return function() {
		delete this[e];
	};
}
function Te(e, t) {
	return function() {
		this[e] = t;
	};
}
function Ee(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? delete this[e] : this[e] = n;
	};
}
function De(e, t) {
	return arguments.length > 1 ? this.each((t == null ? we : typeof t == "function" ? Ee : Te)(e, t)) : this.node()[e];
}
function F(e) {
	return e.trim().split(/^|\s+/);
}
function I(e) {
	return e.classList || new L(e);
}
function L(e) {
	this._node = e, this._names = F(e.getAttribute("class") || "");
}
L.prototype = {
	add: function(e) {
		this._names.indexOf(e) < 0 && (this._names.push(e), this._node.setAttribute("class", this._names.join(" ")));
	},
	remove: function(e) {
		var t = this._names.indexOf(e);
		t >= 0 && (this._names.splice(t, 1), this._node.setAttribute("class", this._names.join(" ")));
	},
	contains: function(e) {
		return this._names.indexOf(e) >= 0;
	}
};
function R(e, t) {
	for (var n = I(e), r = -1, i = t.length; ++r < i;) n.add(t[r]);
}
function z(e, t) {
	for (var n = I(e), r = -1, i = t.length; ++r < i;) n.remove(t[r]);
}
function Oe(e) {
	return function() {
		R(this, e);
	};
}
function ke(e) {
	return function() {
		z(this, e);
	};
}
function Ae(e, t) {
	return function() {
		(t.apply(this, arguments) ? R : z)(this, e);
	};
}
function je(e, t) {
	var n = F(e + "");
	if (arguments.length < 2) {
		for (var r = I(this.node()), i = -1, a = n.length; ++i < a;) if (!r.contains(n[i])) return !1;
		return !0;
	}
	return this.each((typeof t == "function" ? Ae : t ? Oe : ke)(n, t));
}
function Me() {
	this.textContent = "";
}
function Ne(e) {
	return function() {
		this.textContent = e;
	};
}
function Pe(e) {
	return function() {
		var t = e.apply(this, arguments);
		this.textContent = t ?? "";
	};
}
function Fe(e) {
	return arguments.length ? this.each(e == null ? Me : (typeof e == "function" ? Pe : Ne)(e)) : this.node().textContent;
}
function Ie() {
	this.innerHTML = "";
}
function Le(e) {
	return function() {
		this.innerHTML = e;
	};
}
function Re(e) {
	return function() {
		var t = e.apply(this, arguments);
		this.innerHTML = t ?? "";
	};
}
function ze(e) {
	return arguments.length ? this.each(e == null ? Ie : (typeof e == "function" ? Re : Le)(e)) : this.node().innerHTML;
}
function Be() {
	this.nextSibling && this.parentNode.appendChild(this);
}
function Ve() {
	return this.each(Be);
}
function He() {
	this.previousSibling && this.parentNode.insertBefore(this, this.parentNode.firstChild);
}
function Ue() {
	return this.each(He);
}
function B(e) {
	var t = typeof e == "function" ? e : a(e);
	return this.select(function() {
		return this.appendChild(t.apply(this, arguments));
	});
}
function We() {
	return null;
}
function Ge(e, t) {
	var n = typeof e == "function" ? e : a(e), r = t == null ? We : typeof t == "function" ? t : s(t);
	return this.select(function() {
		return this.insertBefore(n.apply(this, arguments), r.apply(this, arguments) || null);
	});
}
function Ke() {
	var e = this.parentNode;
	e && e.removeChild(this);
}
function qe() {
	return this.each(Ke);
}
function Je() {
	var e = this.cloneNode(!1), t = this.parentNode;
	return t ? t.insertBefore(e, this.nextSibling) : e;
}
function Ye() {
	var e = this.cloneNode(!0), t = this.parentNode;
	return t ? t.insertBefore(e, this.nextSibling) : e;
}
function Xe(e) {
	return this.select(e ? Ye : Je);
}
function Ze(e) {
	return arguments.length ? this.property("__data__", e) : this.node().__data__;
}
function Qe(e) {
	return function(t) {
		e.call(this, t, this.__data__);
	};
}
function $e(e) {
	return e.trim().split(/^|\s+/).map(function(e) {
		var t = "", n = e.indexOf(".");
		return n >= 0 && (t = e.slice(n + 1), e = e.slice(0, n)), {
			type: e,
			name: t
		};
	});
}
function et(e) {
	return function() {
		var t = this.__on;
		if (t) {
			for (var n = 0, r = -1, i = t.length, a; n < i; ++n) a = t[n], (!e.type || a.type === e.type) && a.name === e.name ? this.removeEventListener(a.type, a.listener, a.options) : t[++r] = a;
			++r ? t.length = r : delete this.__on;
		}
	};
}
function tt(e, t, n) {
	return function() {
		var r = this.__on, i, a = Qe(t);
		if (r) {
			for (var o = 0, s = r.length; o < s; ++o) if ((i = r[o]).type === e.type && i.name === e.name) {
				this.removeEventListener(i.type, i.listener, i.options), this.addEventListener(i.type, i.listener = a, i.options = n), i.value = t;
				return;
			}
		}
		this.addEventListener(e.type, a, n), i = {
			type: e.type,
			name: e.name,
			value: t,
			listener: a,
			options: n
		}, r ? r.push(i) : this.__on = [i];
	};
}
function nt(e, t, n) {
	var r = $e(e + ""), i, a = r.length, o;
	if (arguments.length < 2) {
		var s = this.node().__on;
		if (s) {
			for (var c = 0, l = s.length, u; c < l; ++c) for (i = 0, u = s[c]; i < a; ++i) if ((o = r[i]).type === u.type && o.name === u.name) return u.value;
		}
	} else {
		for (s = t ? tt : et, i = 0; i < a; ++i) this.each(s(r[i], t, n));
		return this;
	}
}
function V(e, t, n) {
	var r = N(e), i = r.CustomEvent;
	typeof i == "function" ? i = new i(t, n) : (i = r.document.createEvent("Event"), n ? (i.initEvent(t, n.bubbles, n.cancelable), i.detail = n.detail) : i.initEvent(t, !1, !1)), e.dispatchEvent(i);
}
function rt(e, t) {
	return function() {
		return V(this, e, t);
	};
}
function it(e, t) {
	return function() {
		return V(this, e, t.apply(this, arguments));
	};
}
function at(e, t) {
	return this.each((typeof t == "function" ? it : rt)(e, t));
}
function* ot() {
	for (var e = this._groups, t = 0, n = e.length; t < n; ++t) for (var r = e[t], i = 0, a = r.length, o; i < a; ++i) (o = r[i]) && (yield o);
}
var H = [null];
function U(e, t) {
	this._groups = e, this._parents = t;
}
function st() {
	return new U([[document.documentElement]], H);
}
function ct() {
	return this;
}
U.prototype = st.prototype = {
	constructor: U,
	select: c,
	selectAll: p,
	selectChild: y,
	selectChildren: ne,
	filter: re,
	data: le,
	enter: ie,
	exit: C,
	join: de,
	merge: fe,
	selection: ct,
	order: pe,
	sort: me,
	call: ge,
	nodes: _e,
	node: ve,
	size: ye,
	empty: w,
	each: T,
	attr: M,
	style: Se,
	property: De,
	classed: je,
	text: Fe,
	html: ze,
	raise: Ve,
	lower: Ue,
	append: B,
	insert: Ge,
	remove: qe,
	clone: Xe,
	datum: Ze,
	on: nt,
	dispatch: at,
	[Symbol.iterator]: ot
};
function W(e) {
	return typeof e == "string" ? new U([[document.querySelector(e)]], [document.documentElement]) : new U([[e]], H);
}
var lt = 0;
function ut() {
	return new G();
}
function G() {
	this._ = "@" + (++lt).toString(36);
}
G.prototype = ut.prototype = {
	constructor: G,
	get: function(e) {
		for (var t = this._; !(t in e);) if (!(e = e.parentNode)) return;
		return e[t];
	},
	set: function(e, t) {
		return e[this._] = t;
	},
	remove: function(e) {
		return this._ in e && delete e[this._];
	},
	toString: function() {
		return this._;
	}
};
// src/history_tree.js
var K = 24, q = 18, J = 12, dt = 40, Y = 6, X = {
	ordinal: 0,
	lane: 1,
	parent: 2,
	parentLane: 3,
	kind: 4,
	line: 5,
	ring: 6,
	node: 7,
	tip: 8,
	id: 9,
	step: 10,
	source: 11,
	time: 12,
	bytes: 13,
	branch: 14
};
function ft(e) {
	let { data: t, parentElement: n, setTriggerValue: r } = e, i = n.querySelector(":scope > .ht");
	i ||= pt(n);
	let a = i.__view;
	a.pick = r, mt(a, t);
}
function pt(e) {
	let t = W(e).append("div").attr("class", "ht"), n = t.append("div").attr("class", "ht-main"), r = n.append("svg").attr("class", "ht-strip").attr("aria-hidden", "true");
	r.append("rect").attr("class", "ht-strip-ground"), r.append("g").attr("class", "ht-strip-marks"), r.append("rect").attr("class", "ht-strip-window");
	let i = n.append("div").attr("class", "ht-list"), a = i.append("div").attr("class", "ht-spacer"), o = a.append("svg").attr("class", "ht-graph").attr("aria-hidden", "true");
	o.append("g").attr("class", "ht-lines"), o.append("g").attr("class", "ht-points"), o.append("g").attr("class", "ht-rings");
	let s = {
		root: t,
		main: n,
		strip: r,
		list: i,
		spacer: a,
		graph: o,
		rows: a.append("div").attr("class", "ht-rows").attr("role", "listbox"),
		legend: t.append("div").attr("class", "ht-legend"),
		tooltip: t.append("div").attr("class", "ht-tooltip").attr("role", "tooltip").style("display", "none"),
		data: null,
		frame: 0,
		pick: null
	};
	t.node().__view = s, i.on("scroll", () => {
		s.frame ||= requestAnimationFrame(() => {
			s.frame = 0, Q(s);
		});
	});
	let c = (e) => {
		let t = s.strip.node().getBoundingClientRect(), n = Math.min(Math.max((e.clientY - t.top) / t.height, 0), 1), r = s.list.node();
		r.scrollTop = n * s.data.rows.length * K - r.clientHeight / 2;
	};
	return r.on("pointerdown", (e) => {
		e.preventDefault(), r.node().setPointerCapture(e.pointerId), c(e), r.on("pointermove", c);
	}), r.on("pointerup pointercancel", (e) => {
		r.node().releasePointerCapture(e.pointerId), r.on("pointermove", null);
	}), t.node();
}
function mt(e, t) {
	let n = e.data === null;
	e.data = t;
	let r = t.rows.length, i = Math.min(r, t.visible) * K, a = r > t.visible;
	e.graphWidth = J + Math.max(t.lanes - 1, 0) * q + J, e.root.classed("ht-pickable", t.pickable), e.list.style("height", `${i}px`), e.spacer.style("height", `${r * K}px`), e.graph.attr("width", e.graphWidth), e.strip.style("display", a ? null : "none").attr("width", dt).attr("height", i), _t(e, i), yt(e);
	let o = e.list.node(), s = r - t.at, c = o.scrollTop / K, l = s >= c + 1 && s <= c + t.visible - 2;
	(n || !l) && (o.scrollTop = Math.max(s - t.visible / 2 + .5, 0) * K), Q(e);
}
var Z = (e) => J + e * q;
function Q(e) {
	let { data: t } = e, n = t.rows, r = n.length, i = e.list.node(), a = Math.max(Math.floor(i.scrollTop / K) - Y, 0), o = Math.min(Math.ceil((i.scrollTop + i.clientHeight) / K) + Y, r - 1), s = (e) => r - e, c = (e) => (e - a) * K + K / 2, l = [];
	for (let e = a; e <= o; e++) l.push(n[r - 1 - e]);
	let u = [];
	for (let e of n) {
		let t = e[X.parent];
		if (t === null) continue;
		let n = s(e[X.ordinal]), r = s(t);
		n > o || r < a || u.push(e);
	}
	u.sort((e, t) => (e[X.line] > 0) - (t[X.line] > 0)), e.graph.style("top", `${a * K}px`).attr("height", (o - a + 1) * K), e.graph.select(".ht-lines").selectAll("path").data(u, (e) => e[X.id]).join("path").attr("d", (e) => {
		let t = s(e[X.ordinal]), n = s(e[X.parent]), r = e[X.parentLane] === e[X.lane] ? c(n) : c(n) - K / 2;
		return `M${Z(e[X.lane])},${c(t)}V${r}L${Z(e[X.parentLane])},${c(n)}`;
	}).attr("stroke", (e) => t.lines[e[X.line]][1]), e.graph.select(".ht-points").selectAll("circle").data(l, (e) => e[X.id]).join("circle").attr("data-id", (e) => e[X.id]).attr("cx", (e) => Z(e[X.lane])).attr("cy", (e) => c(s(e[X.ordinal]))).attr("r", 5.5).attr("fill", (e) => t.kinds[e[X.kind]][1]), e.graph.select(".ht-rings").selectAll("path").data(l.filter((e) => e[X.ring] !== null), (e) => e[X.id]).join("path").attr("d", (e) => ht(t.rings[e[X.ring]][1], Z(e[X.lane]), c(s(e[X.ordinal])))).attr("stroke", (e) => t.rings[e[X.ring]][2]), e.rows.selectAll("div.ht-row").data(l, (e) => e[X.id]).join((e) => {
		let t = e.append("div").attr("class", "ht-row");
		return t.append("span").attr("class", "ht-name"), t.append("span").attr("class", "ht-tip"), t;
	}).style("top", (e) => `${s(e[X.ordinal]) * K}px`).style("padding-left", `${e.graphWidth}px`).attr("role", "option").attr("aria-label", (e) => $(e)).attr("aria-selected", (e) => String(e[X.id] === t.selected)).attr("data-id", (e) => e[X.id]).classed("ht-selected", (e) => e[X.id] === t.selected).call((e) => e.select(".ht-name").text((e) => $(e))).call((e) => e.select(".ht-tip").text((e) => e[X.tip] ?? "")).on("click", (n, r) => {
		t.pickable && e.pick("pick", r[X.id]);
	}).on("mouseenter", (t, n) => gt(e, t.currentTarget, n)).on("mouseleave", () => e.tooltip.style("display", "none")), vt(e);
}
var $ = (e) => `#${e[X.ordinal]} ${e[X.node]}`;
function ht(e, t, n) {
	if (e === "diamond") return `M${t},${n - 9}L${t + 9},${n}L${t},${n + 9}L${t - 9},${n}Z`;
	let r = 8.5;
	return `M${t - r},${n}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
}
function gt(e, t, n) {
	let r = e.data, i = [
		["checkpoint", $(n)],
		["id", n[X.id]],
		["node", n[X.node]],
		["step", n[X.step] ?? "?"],
		["source", n[X.source]],
		["time", n[X.time]],
		["stored bytes", n[X.bytes].toLocaleString("en-US")],
		["its branch", r.branches[n[X.branch]]]
	];
	e.tooltip.selectAll("div").data(i).join((e) => {
		let t = e.append("div");
		return t.append("span").attr("class", "ht-tooltip-key"), t.append("span"), t;
	}).call((e) => e.select(".ht-tooltip-key").text(([e]) => e)).call((e) => e.select("span:last-child").text(([, e]) => String(e)));
	let a = t.getBoundingClientRect(), o = e.root.node().getBoundingClientRect();
	e.tooltip.style("display", null).style("left", `${Math.min(e.graphWidth + 8, Math.max(o.width - 320, 0))}px`).style("top", `${a.bottom - o.top + 2}px`);
}
function _t(e, t) {
	let { data: n } = e, r = n.rows.length, i = [];
	if (r > n.visible) {
		let e = /* @__PURE__ */ new Map();
		for (let i of n.rows) {
			let a = Math.min(i[X.lane], 5), o = Math.floor((r - i[X.ordinal]) / r * t);
			e.has(a) || e.set(a, /* @__PURE__ */ new Map());
			let s = e.get(a), c = i[X.kind], l = s.get(o);
			(l === void 0 || n.kinds[c][2] < n.kinds[l][2]) && s.set(o, c);
		}
		for (let [t, n] of e) {
			let e = [...n.keys()].sort((e, t) => e - t), r = null, a = null, o = null;
			for (let s of e) {
				let e = n.get(s);
				r !== null && s === a + 1 && e === o ? a = s : (r !== null && i.push({
					lane: t,
					start: r,
					end: a,
					kind: o
				}), r = s, a = s, o = e);
			}
			r !== null && i.push({
				lane: t,
				start: r,
				end: a,
				kind: o
			});
		}
	}
	e.strip.select(".ht-strip-ground").attr("x", 2).attr("y", 0).attr("width", 36).attr("height", t).attr("rx", 3), e.strip.select(".ht-strip-marks").selectAll("rect").data(i).join("rect").attr("x", (e) => 7 + e.lane * 5).attr("width", 4).attr("y", (e) => e.start).attr("height", (e) => e.end - e.start + 1).attr("fill", (e) => n.kinds[e.kind][1]);
}
function vt(e) {
	let t = e.data.rows.length;
	if (t <= e.data.visible) return;
	let n = e.list.node(), r = n.clientHeight, i = n.scrollTop / K / t * r, a = Math.max(r / K / t * r, 3);
	e.strip.select(".ht-strip-window").attr("x", 1).attr("width", 38).attr("y", Math.min(i, r - a)).attr("height", a);
}
function yt(e) {
	let { data: t } = e, n = [
		["checkpoints", t.kinds.map(([e, t]) => ({
			name: e,
			colour: t,
			shape: "dot"
		}))],
		["lines", [...t.lines.slice(1), t.lines[0]].filter(([, , e]) => e).map(([e, t]) => ({
			name: e,
			colour: t,
			shape: "line"
		}))],
		["marks", t.rings.filter(([, , , e]) => e).map(([e, t, n]) => ({
			name: e,
			colour: n,
			shape: t
		}))]
	].filter(([, e]) => e.length);
	e.legend.selectAll("div.ht-legend-group").data(n).join((e) => {
		let t = e.append("div").attr("class", "ht-legend-group");
		return t.append("span").attr("class", "ht-legend-title"), t;
	}).call((e) => e.select(".ht-legend-title").text(([e]) => e)).each(function([, e]) {
		W(this).selectAll("span.ht-legend-entry").data(e).join((e) => {
			let t = e.append("span").attr("class", "ht-legend-entry");
			return t.append("svg").attr("width", 16).attr("height", 16).attr("aria-hidden", "true"), t.append("span"), t;
		}).each(function(e) {
			let t = W(this).select("svg");
			t.selectAll("*").remove(), e.shape === "dot" ? t.append("circle").attr("cx", 8).attr("cy", 8).attr("r", 5.5).attr("fill", e.colour) : e.shape === "line" ? t.append("path").attr("d", "M1,8H15").attr("stroke", e.colour).attr("stroke-width", 2) : t.append("path").attr("class", "ht-ring").attr("stroke", e.colour).attr("d", e.shape === "diamond" ? "M8,1.5L14.5,8L8,14.5L1.5,8Z" : "M2,8a6,6 0 1,0 12,0a6,6 0 1,0 -12,0"), W(this).select("span").text(e.name);
		});
	});
}
export { ft as default };
