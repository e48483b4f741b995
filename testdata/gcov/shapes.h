// Classes with constructors and destructors (gcc emits C1/C2 and D0/D1/D2
// copies), virtual functions and inline member functions in a header.
#ifndef SHAPES_H
#define SHAPES_H

#include <cstdio>

extern int live_shapes;

class Shape {
public:
	explicit Shape(const char *name) : name_(name) { live_shapes++; }
	virtual ~Shape() { live_shapes--; }
	virtual double area() const = 0;
	virtual int sides() const { return 0; }
	const char *name() const { return name_; }
	bool bigger(const Shape &o) const
	{
		if (area() > o.area())
			return true;
		return false;
	}

private:
	const char *name_;
};

class Rect : public Shape {
public:
	Rect(double w, double h) : Shape("rect"), w_(w), h_(h) {}
	Rect(double side) : Rect(side, side) {}
	double area() const override { return w_ * h_; }
	int sides() const override { return 4; }

protected:
	double w_, h_;
};

class Circle : public Shape {
public:
	Circle(double r);
	~Circle() override;
	double area() const override;

private:
	double r_;
};

inline double clamp_area(double a)
{
	if (a < 0)
		return 0;
	if (a > 1000)
		return 1000;
	return a;
}

#endif
